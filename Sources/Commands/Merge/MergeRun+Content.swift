import Aggregator
import FeedEmit
import FeedModel
import FeedParse
import Foundation
import HTMLSanitizer
import PlanetPage
import Subscriptions

extension MergeRun {
    /// What the outputs are made of: the entries (sanitized for the feeds
    /// with `--sanitize`), and the page and the OPML when they are written.
    /// - Parameter pages: a render's pages whose lists of subscriptions were made as its parts
    ///   were served (`PagesInParts`); without, they are made here when every page can
    ///   have them. A page's input then names only the feeds of the entries.
    func outputContent(
        outputs: [Outputs.Output], entries: [MergedEntry], metadata: OutputMetadata, reports: [FeedReport],
        list: SubscriptionList, pages: PagesInParts.Made? = nil
    ) -> OutputContent {
        let feedEntries =
            options.sanitize && outputs.contains(where: { if case .feed = $0.kind { true } else { false } })
            ? entries.map { item in
                var item = item
                item.entry = item.entry.sanitizedWithLinks(base: item.entry.link ?? item.source.link)
                item.source.link = item.source.link.flatMap(HTMLSanitizer.webLink)
                item.source.authors = item.source.authors.map(\.withSafePage)
                return item
            } : entries
        var content = OutputContent(entries: feedEntries, metadata: metadata)
        // A feed listed twice (one subscription moved by a 301 to another's address) is one feed.
        let reports = Self.distinctFeeds(reports)
        if outputs.contains(where: { $0.kind == .page }) {
            let newest = Self.newestByFeed(entries)
            let pages =
                pages
                ?? PagesInParts(self).map { pages in
                    var pages = pages
                    pages.add(reports, newest: newest, run: self)
                    return pages.made()
                }
            var input = PlanetPageInput(
                entries: entries, metadata: metadata,
                sources: pages?.sources ?? planetSources(reports, newestInTimeline: newest),
                generated: rules.now, summaryOnly: options.summaryOnly)
            content.pageSubscriptions = pages?.lists ?? [:]
            input.settings = options.pageSettings
            // Each page links to the other outputs from its own folder.
            content.page = (input, { page in links(from: page, outputs) })
        }
        if outputs.contains(where: { $0.kind == .subscriptionList }) {
            content.subscriptionList = OPMLWriter.render(
                reports.map { report in
                    OPMLWriter.Feed(
                        // The name the operator gave it first: re-importing the list keeps it.
                        title: report.subscription.title ?? report.source?.title ?? report.subscription.url,
                        xmlURL: report.movedTo ?? report.record?.movedTo ?? report.subscription.url,
                        htmlURL: (report.source?.link ?? report.subscription.htmlURL).flatMap(HTMLSanitizer.webLink),
                        folder: report.subscription.folder)
                }, title: metadata.title, ownerName: metadata.author?.name, ownerEmail: metadata.author?.email,
                created: rules.now)
        }
        return content
    }

    /// The reports of distinct feeds: a subscription whose feed now lives where
    /// an earlier one's does (a permanent redirect) is left out.
    static func distinctFeeds(_ reports: [FeedReport]) -> [FeedReport] {
        var distinct = DistinctFeeds()
        return distinct.keep(reports)
    }

    /// Each feed's newest entry among `entries` (newest first).
    static func newestByFeed(_ entries: [MergedEntry]) -> [String: Timestamp] {
        var newest: [String: Timestamp] = [:]
        for item in entries where newest[item.source.feedURL] == nil { newest[item.source.feedURL] = item.date }
        return newest
    }

    /// Each subscription as the page shows it, with its health.
    /// - Parameter newestInTimeline: each feed's newest entry in the timeline, which
    ///   is its newest entry without a state.
    func planetSources(_ reports: [FeedReport], newestInTimeline: [String: Timestamp]) -> [PlanetSource] {
        reports.map { report in
            let feedURL = report.source?.feedURL ?? report.subscription.url
            let newest = report.newestEntry ?? newestInTimeline[feedURL]
            let status: PlanetSource.Status
            switch report.status {
            case .failed: status = .failing
            case .gone: status = .gone
            case .deferred:
                // Asked to wait after failing: still failing, not fine.
                status = (report.record?.consecutiveFailures ?? 0) > 0 ? .failing : .deferred
            case .ok, .notModified:
                let stale = newest.map {
                    rules.now.secondsSince1970 - $0.secondsSince1970 > HealthReport.staleDays * 86_400
                }
                status = report.partialReason != nil ? .partial : stale == true ? .stale : .ok
            }
            var source = PlanetSource(
                name: report.subscription.title ?? report.source?.title ?? report.subscription.url, feedURL: feedURL,
                title: report.source?.title, link: report.source?.link ?? report.subscription.htmlURL,
                id: report.source?.id, icon: report.source?.icon, status: status,
                // A feed deferred after failing says why it failed, as the run that failed did.
                message: report.reason ?? (status == .failing || status == .gone ? report.record?.lastError : nil),
                httpStatus: report.httpStatus ?? report.record?.lastStatus,
                location: report.movedTo ?? report.record?.movedTo, lastSuccess: report.record?.lastSuccess,
                newestEntry: newest, failures: report.record?.consecutiveFailures ?? 0,
                failingSince: status == .failing || status == .gone ? report.record?.failingSince : nil,
                folder: report.subscription.folder, properties: report.subscription.properties)
            source.propertiesAreMarkup = report.subscription.propertiesAreMarkup
            source.partialReason = report.partialReason
            if options.showsFeedsOwnAddress { source.shownAddress = report.source?.selfLink }
            return source
        }
    }

    /// The run's other outputs a theme links to (`atom`, `rss`, `json`,
    /// `opml`), as paths relative to the page's folder; the first of each.
    private func links(from page: String, _ outputs: [Outputs.Output]) -> [String: String] {
        var links: [String: String] = [:]
        for output in outputs where output.path != "-" {
            let name: String
            switch output.kind {
            case .feed(let format): name = format.rawValue
            case .subscriptionList: name = "opml"
            case .page: continue
            }
            if links[name] == nil { links[name] = Self.relativePath(of: output.path, from: page) }
        }
        return links
    }

    /// `path` as seen from the folder of `page`.
    static func relativePath(of path: String, from page: String) -> String {
        func components(_ path: String) -> [String] {
            URL(fileURLWithPath: path).standardizedFileURL.path.split(separator: "/").map(String.init)
        }
        let target = components(path)
        let folder = components(page).dropLast()
        var common = 0
        while common < min(target.count - 1, folder.count), target[common] == folder[common] { common += 1 }
        let ups = Array(repeating: "..", count: folder.count - common)
        // A URL path: each segment percent-encoded (`my feed#1.atom`), and `./` before a
        // first segment with a colon, which would read as a scheme (`a:b.json`).
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/;?#")
        let segments = target[common...].map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0 }
        let path = (ups + segments).joined(separator: "/")
        return ups.isEmpty && (segments.first?.contains(":") ?? false) ? "./" + path : path
    }
}
