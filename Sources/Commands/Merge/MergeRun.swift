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
import Telemetry
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
    /// `feedmerge render`: how much of the state it holds at a time.
    var renderSizes = RenderSizes()
    /// `feedmerge render`: gives the system back what the allocator keeps
    /// of the memory a part freed (`LinkedAllocator.releaseFreed`).
    var releaseFreedMemory: @Sendable () -> Void = {}

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

    /// The run's steps, in order; a step that cannot go on ends the run with its exit status.
    func run() async -> ExitStatus {
        let started = Date()
        do throws(Stop) {
            let outputs = try reserveOutputs()
            let start = try await openState(outputs)
            defer { withExtendedLifetime(start.lock) {} }
            let client = HTTPClient(configuration: options.fetchConfiguration)
            var (list, filters, packed) = try await readSources(
                listedInState: start.listed, client: client, outputs: outputs)
            let metrics =
                outputs.metrics == nil ? nil : MetricRegistry.feedmerge(version: feedmergeVersion, started: started)
            var merged = await fetch(
                &list, packed: packed.take(), filters: &filters, client: client, start: start, outputs: outputs,
                metrics: metrics)
            tellWarnings(list: list, filters: filters)
            if merged.unread {
                return await writeNothing(merged, outputs: outputs, metrics: metrics, started: started)
            }
            let link = options.link ?? list.homePage
            if let message = missingLink(outputs, list) {
                outputs.discard()
                StandardOutput.error(message + "; nothing was written")
                return .usage
            }
            let feedID = await mergedFeedID(
                sources: merged.sources ?? MergedFeedID.hash(of: list), link: link, session: merged.state.session,
                diagnostics: &merged.result.diagnostics)
            // The store is done with (the page's health was collected in the run): its file is tidied beside the outputs.
            await merged.state.session.finish()
            let reports = merged.result.reports
            let tally = merged.tally
            let duplicates = merged.result.timeline.duplicates
            let entries = merged.result.takeEntries()
            if options.verbose {
                let seconds = String(format: "%.3f", Date().timeIntervalSince(started))
                StandardOutput.error("feedmerge: sources, fetch, parse and merge took \(seconds) s")
            }
            for failure in merged.listFailures { StandardOutput.error("feedmerge: failed: \(failure)") }
            let diagnostics = merged.result.diagnostics
            var written = Written()
            (written.outputs, written.changed) = await writeOutputs(
                outputs, entries: entries,
                metadata: outputMetadata(list: list, link: link, id: feedID, entries: entries, tally: tally),
                reports: reports, tally: tally, list: list, excerptWidth: filters.excerptWidth, pages: merged.pages)
            written.health = writeHealth(outputs, merged: merged, diagnostics: diagnostics)
            tellMoves(reports)
            written.metrics = writeMetrics(
                metrics, into: outputs.metrics, tally: tally, diagnostics: diagnostics, started: started)
            written.opml = updateOPML(reports)
            var summary = RunSummary(
                reports: reports, tally: tally, diagnostics: diagnostics, duplicates: duplicates,
                entries: entries.count,
                written: written.outputs, outputs: outputs.outputs.count, seconds: Date().timeIntervalSince(started),
                now: rules.now)
            summary.rendered = options.renderOnly
            summary.hubFailures = await tellHubs(written.changed)
            summary.print(quiet: options.quiet, verbose: options.verbose)
            // The timeline's memory goes back with the process, at once, where
            // freeing its entries one string at a time would cost a tenth of a
            // second on a big run.
            ProcessEnd.keep(entries)
            return exitStatus(written, outputs: outputs.outputs.count, merged: merged)
        } catch {
            return error.status
        }
    }

    /// The error when an RSS output would have no channel link.
    func missingLink(_ outputs: Outputs, _ list: SubscriptionList) -> String? {
        guard options.link == nil, list.homePage == nil,
            let rss = outputs.outputs.first(where: { $0.kind == .feed(.rss) })
        else { return nil }
        return "feedmerge: \(rss.path): an RSS channel needs a home page link: give --link URL "
            + "(or an htmlUrl or ownerId URL in the OPML head)"
    }

    /// The merged feed's id: `--id`, else what identifies the planet
    /// (`--self-url`, the home page link), else the id the state keeps: the
    /// hash of the sources its first run merged (`MergedFeedID`), so that
    /// editing the list does not make a new feed of it. Without a state,
    /// the hash of this run's sources.
    private func mergedFeedID(
        sources: UInt64, link: String?, session: StateSession, diagnostics: inout [String]
    ) async -> String {
        if let id = options.id ?? options.selfURL ?? link { return id }
        do throws(StateError) {
            return MergedFeedID.text(
                try await session.keepMergedFeedID(sources))
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
        list: SubscriptionList, link: String?, id: String, entries: [MergedEntry], tally: ReportTally
    ) -> OutputMetadata {
        let sourcesUpdated = tally.sourcesUpdated.map { min($0, rules.now) }
        let owner =
            list.ownerName != nil || list.ownerEmail != nil
            ? Person(name: list.ownerName, email: list.ownerEmail) : nil
        return OutputMetadata(
            title: options.title ?? list.title ?? "feedmerge", link: link, selfURL: options.selfURL,
            id: id, author: options.author ?? owner,
            updated: entries.first?.date ?? sourcesUpdated ?? rules.now, generator: "feedmerge",
            generatorVersion: feedmergeVersion, hubs: options.webSub.hubs)
    }
}
