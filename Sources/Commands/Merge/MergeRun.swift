import Aggregator
import Basics
import FeedEmit
import FeedFetch
import FeedModel
import FeedState
import Foundation
import Glibc
import PlanetPage
import Subscriptions
import TimelineMerge

/// One run of the main job, in the order its steps must happen: reserve
/// the outputs, lock and open the state, read the sources, fetch, parse and
/// merge every feed, write the outputs and the health report, report. Each
/// step that can fail ends the run with its exit status, before the next
/// step costs anything; nothing here exits the process.
struct MergeRun {
    let options: MergeOptions
    let rules: TimelineRules
    let stateLocation: StateLocation?
    /// Each `-o` with what it holds; a page with its theme (compiled before
    /// anything else happens) and its cap.
    let destinations: [(path: String, kind: OutputKind, page: Outputs.Page?)]
    /// What the pages' filters name that is not run.
    let pageFilterWarnings: [String]

    init(options: MergeOptions, environment: [String: String]) throws(UsageError) {
        self.options = options
        var destinations: [(path: String, kind: OutputKind, page: Outputs.Page?)] = []
        var pageFilterSetup = FilterSetup(
            folders: [FileManager.default.currentDirectoryPath] + options.filterFolders, timeLimit: options.themeTimeout
        )
        // Each theme file is compiled once, however many pages it makes.
        var themes: [String: PageTheme] = [:]
        for output in options.outputs {
            let kind = try output.resolvedFormat()
            guard kind == .page else {
                destinations.append((output.path, kind, nil))
                continue
            }
            let request = output.page.over(options.page)
            let key = request.themePath ?? ""
            if themes[key] == nil {
                do throws(Theme.Failure) {
                    if let path = request.themePath {
                        themes[key] = try PageTheme.file(path, timeLimit: options.themeTimeout)
                    } else {
                        themes[key] = .xslt(try Theme.builtIn(timeLimit: options.themeTimeout))
                    }
                } catch {
                    throw UsageError(error.description)
                }
            }
            let filters = try pageFilterSetup.pageFilters(request.filters)
            let page = Outputs.Page(theme: themes[key]!, cap: request.cap, settings: request.settings, filters: filters)
            destinations.append((output.path, kind, page))
        }
        self.destinations = destinations
        pageFilterWarnings = pageFilterSetup.warnings
        rules = try options.rules(now: options.runTime(environment: environment))
        stateLocation = options.resolvedStatePath(environment: environment).map(StateLocation.init)
    }

    /// Whether a page is written.
    var writesPage: Bool { destinations.contains { $0.page != nil } }

    func run() async -> ExitStatus {
        let started = Date()
        let outputs: Outputs
        do {
            outputs = try Outputs.reserve(destinations, health: options.healthPath, metrics: options.metricsPath)
        } catch {
            for message in error.messages { StandardOutput.error("feedmerge: \(message)") }
            StandardOutput.error("feedmerge: no feed was fetched, no output written")
            return .nothingWritten
        }
        var opened: StateLocation.Opened?
        var state: StateOptions?
        // What the state knows of each feed; sources among them are not read ahead (see SourceReader).
        var records: [String: FeedRecord]?
        // `feedmerge render` given no SOURCE (parsed only with a shared state): the feeds it lists.
        var listedInState: [String] = []
        if let stateLocation {
            do throws(StateError) {
                var open = try stateLocation.open()
                if options.rendersWholeState, let shared = open.store as? any SharedStateStore {
                    listedInState = try shared.listedFeeds(now: rules.now)
                }
                // `feedmerge render` changes nothing in the state.
                if options.renderOnly { open = .init(store: ReadOnlyStateStore(open.store), lock: open.lock) }
                opened = open
                records = try open.store.feeds()
                state = stateOptions(store: open.store)
            } catch {
                outputs.discard()
                switch error.kind {
                case .held:
                    StandardOutput.error("feedmerge: state: \(error)")
                    return .stateLocked
                case .cannotCreate:
                    StandardOutput.error("feedmerge: state: \(error)")
                    return .stateCannotBeCreated
                case .unusable, .damaged:
                    StandardOutput.error("feedmerge: state: \(error); nothing was done")
                    return .stateUnusable
                }
            }
        }
        defer { withExtendedLifetime(opened) {} }

        let client = HTTPClient(configuration: options.fetch)
        var list = SubscriptionList()
        if options.rendersWholeState {
            list.subscriptions = listedInState.map { Subscription(url: $0) }
        } else {
            do {
                list = try await SourceReader.read(options.sources, configured: options.subscriptions, client: client)
            } catch {
                outputs.discard()
                StandardOutput.error("feedmerge: \(error)")
                return .usage
            }
        }
        var filters = FilterSetup(
            folders: [FileManager.default.currentDirectoryPath] + options.filterFolders, timeLimit: options.themeTimeout
        )
        do {
            try filters.apply(options.entryFilters, to: &list)
        } catch {
            outputs.discard()
            StandardOutput.error("feedmerge: \(error.message)")
            return .usage
        }
        guard !list.subscriptions.isEmpty else {
            outputs.discard()
            StandardOutput.error(
                options.rendersWholeState ? "feedmerge: the state lists no feed" : "feedmerge: the sources list no feed"
            )
            return .usage
        }
        // A SOURCE that may still turn out to be a list may still give an OPML head with a link.
        if !list.subscriptions.contains(where: \.mayBeList), let message = missingLink(outputs, list) {
            outputs.discard()
            StandardOutput.error(message)
            return .usage
        }

        let progress = Progress(enabled: !options.quiet && isatty(2) != 0)
        var runState = state ?? .withoutState()
        // A shared state: the hosts of the listed feeds that no other process holds are claimed.
        var shared = SharedClaims(store: runState.store, renderOnly: options.renderOnly, rules: rules)
        if shared != nil {
            let claimed = shared!.claim(list.subscriptions.map(\.url), records: &records)
            runState.claimedFeeds = claimed
        }
        var result = await Aggregator.run(list, client: client, rules: rules, state: runState, records: records) {
            report, done, total in
            progress.update(report, done: done, total: total)
        }
        // SOURCEs that were subscription lists: their feeds are merged into the same timeline, after the others.
        var listFailures: [String] = []
        if !result.subscriptionLists.isEmpty {
            var expanded = list  // knows what is listed already: a feed is not added twice
            for (subscription, document) in result.subscriptionLists {
                do {
                    let localFile = subscription.url.contains("://") ? nil : subscription.url
                    try expanded.add(
                        opml: document, source: subscription.url, localFile: localFile,
                        namesLocalFiles: subscription.mayReadLocalFile && LocalFile.path(of: subscription.url) != nil)
                } catch {
                    listFailures.append("\(error)")
                }
            }
            var more = SubscriptionList()
            more.subscriptions = Array(expanded.subscriptions[list.subscriptions.count...])
            do {
                try filters.apply(options.entryFilters, to: &more)
            } catch {
                listFailures.append(error.message)
                more.subscriptions = []
            }
            if !more.subscriptions.isEmpty {
                if shared != nil {
                    runState.claimedFeeds = shared!.claim(more.subscriptions.map(\.url), records: &records)
                }
                let first = result.takeTimeline()
                var second = await Aggregator.run(
                    more, client: client, rules: rules, state: runState, records: records, continuing: first,
                    firstIndex: list.subscriptions.count
                ) { report, done, total in progress.update(report, done: done, total: total) }
                result.reports += second.reports
                result.diagnostics += second.diagnostics
                result.timeline = second.takeTimeline()
            }
            list = expanded  // its head (title, owner, link) and warnings too
        }
        progress.finish()
        if let failure = shared?.release(state: runState, reports: &result.reports) {
            result.diagnostics.append(failure)
        }
        if options.verbose {
            for warning in list.warnings { StandardOutput.error("feedmerge: \(warning)") }
        } else if !options.quiet {
            // Filter settings a list that is not a local file gave are left out: said once, the first named.
            let dropped = list.warnings.filter { $0.hasSuffix(OPMLReader.remoteFilterSettingDropped) }
            if let first = dropped.first {
                let more = dropped.count > 1 ? " (and \(dropped.count - 1) more such settings; -v lists them)" : ""
                StandardOutput.error("feedmerge: \(first)\(more)")
            }
        }
        if !options.quiet || options.warnWhenQuiet {
            for warning in pageFilterWarnings + filters.warnings { StandardOutput.error("feedmerge: \(warning)") }
        }
        let link = options.link ?? list.homePage
        if let message = missingLink(outputs, list) {
            outputs.discard()
            StandardOutput.error(message + "; nothing was written")
            return .usage
        }
        let feedID = mergedFeedID(list: list, link: link, store: runState.store, diagnostics: &result.diagnostics)
        // The store is done with (the page's health was collected in the run): its file is tidied beside the outputs.
        runState.store.finish()
        let reports = result.reports
        let duplicates = result.timeline.duplicates
        let entries = result.takeEntries()
        if options.verbose {
            let seconds = String(format: "%.3f", Date().timeIntervalSince(started))
            StandardOutput.error("feedmerge: sources, fetch, parse and merge took \(seconds) s")
        }

        for failure in listFailures { StandardOutput.error("feedmerge: failed: \(failure)") }
        let failed = reports.filter(\.failed)
        var written = 0
        // With a state, failing feeds still give their stored entries: write if anything is there.
        if failed.count < reports.count || !entries.isEmpty {
            let metadata = outputMetadata(list: list, link: link, id: feedID, entries: entries, reports: reports)
            var content = outputContent(
                outputs: outputs.outputs, entries: entries, metadata: metadata, reports: reports, list: list)
            if let width = filters.excerptWidth { content.page?.input.excerptLength = width }
            let failures = await OutputWriter.write(outputs.outputs, content: content, verbose: options.verbose)
            for failure in failures {
                if let failure { StandardOutput.error("feedmerge: \(failure)") } else { written += 1 }
            }
        } else {
            for output in outputs.outputs { if case .file(let file) = output.destination { file.discard() } }
        }
        var healthWritten = true
        if let health = outputs.health {
            do {
                try health.commit(
                    bytes: HealthReport.render(
                        reports, diagnostics: result.diagnostics, now: rules.now, keepDays: options.keepDays))
            } catch {
                healthWritten = false
                StandardOutput.error("feedmerge: --health \(error)")
            }
        }
        // A permanent redirect is said once, on the run that follows it (later runs ask the new
        // address directly); with --update-opml, the rewrite's line says it.
        if !options.updateOPML && !options.quiet {
            for report in reports {
                guard let to = report.movedTo else { continue }
                StandardOutput.error(
                    "feedmerge: moved: \(report.subscription.url) -> \(to) (a permanent redirect, remembered: "
                        + "asked there from now on; --update-opml writes it into the list)")
            }
        }
        let metricsWritten = writeMetrics(
            outputs.metrics, reports: reports, diagnostics: result.diagnostics,
            stored: state != nil && !options.renderOnly,
            started: started)
        var opmlWritten = true
        if options.updateOPML {
            let moved = reports.compactMap { report in report.movedTo.map { (report.subscription, $0) } }
            let rewrite = OPMLRewriter.apply(moved)
            for (file, count) in rewrite.updated.sorted(by: { $0.key < $1.key }) where !options.quiet {
                StandardOutput.error("feedmerge: \(file): \(counted(count, "moved feed")) updated")
            }
            for failure in rewrite.failures { StandardOutput.error("feedmerge: --update-opml: \(failure)") }
            opmlWritten = rewrite.failures.isEmpty
        }
        var summary = RunSummary(
            reports: reports, diagnostics: result.diagnostics, duplicates: duplicates, entries: entries.count,
            written: written,
            outputs: outputs.outputs.count, seconds: Date().timeIntervalSince(started), now: rules.now)
        summary.rendered = options.renderOnly
        summary.print(quiet: options.quiet, verbose: options.verbose)
        // The timeline's memory goes back with the process, at once, where
        // freeing its entries one string at a time would cost a tenth of a
        // second on a big run.
        ProcessEnd.keep(entries)
        if written == 0 { return .nothingWritten }
        if written < outputs.outputs.count || !healthWritten || !metricsWritten || !opmlWritten {
            return .someOutputsNotWritten
        }
        if !result.diagnostics.isEmpty || reports.contains(where: \.stateFailed) { return .stateUnusable }
        return failed.isEmpty && listFailures.isEmpty ? .success : .someFeedsFailed
    }

    /// The error when an RSS output would have no channel link.
    private func missingLink(_ outputs: Outputs, _ list: SubscriptionList) -> String? {
        guard options.link == nil, list.homePage == nil,
            let rss = outputs.outputs.first(where: { $0.kind == .feed(.rss) })
        else { return nil }
        return "feedmerge: \(rss.path): an RSS channel needs a home page link: give --link URL "
            + "(or an htmlUrl or ownerId URL in the OPML head)"
    }

    private func stateOptions(store: any StateStore) -> StateOptions {
        var state = StateOptions(store: store)
        state.force = options.force
        state.keepDays = options.keepDays
        state.keepPerFeed = options.keepPerFeed
        // The page shows each feed's health too.
        state.health = options.healthPath != nil || writesPage
        state.newFeedItems = options.newFeedItems
        state.dueOnly = options.dueOnly
        state.servesOnly = options.renderOnly
        return state
    }

    /// The merged feed's id: `--id`, else what identifies the planet
    /// (`--self-url`, the home page link), else the id the state keeps: the
    /// hash of the sources its first run merged (`MergedFeedID`), so that
    /// editing the list does not make a new feed of it. Without a state,
    /// the hash of this run's sources.
    private func mergedFeedID(
        list: SubscriptionList, link: String?, store: any StateStore, diagnostics: inout [String]
    ) -> String {
        if let id = options.id ?? options.selfURL ?? link { return id }
        let sources = MergedFeedID.hash(of: list)
        do throws(StateError) {
            return MergedFeedID.text(try store.keepMergedFeedID(sources))
        } catch {
            diagnostics.append("state: the merged feed's id cannot be kept (\(error)); this run's sources give it")
            return MergedFeedID.text(sources)
        }
    }

    /// The merged feed's own metadata: the options, else the OPML head. It
    /// was updated when its newest entry was dated; with no entry, when its
    /// newest source says it was (never later than the run), and only with
    /// neither at the run's time: an empty merge of unchanged feeds gives
    /// the same bytes on every run.
    private func outputMetadata(
        list: SubscriptionList, link: String?, id: String, entries: [MergedEntry], reports: [FeedReport]
    ) -> OutputMetadata {
        let sourcesUpdated = reports.compactMap { $0.source?.updated }.max().map { min($0, rules.now) }
        let owner =
            list.ownerName != nil || list.ownerEmail != nil
            ? Person(name: list.ownerName, email: list.ownerEmail) : nil
        return OutputMetadata(
            title: options.title ?? list.title ?? "feedmerge", link: link, selfURL: options.selfURL,
            id: id, author: options.author ?? owner,
            updated: entries.first?.date ?? sourcesUpdated ?? rules.now, generator: "feedmerge",
            generatorVersion: feedmergeVersion)
    }
}
