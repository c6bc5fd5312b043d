import Aggregator
import FeedFetch
import FeedState
import Foundation
import Glibc
import Subscriptions
import Telemetry
import TimelineMerge

extension MergeRun {
    /// What fetching and merging gave.
    struct Merged {
        /// Its reports: every feed's, or in a render in parts those the
        /// summary names (`ReportTally.names`) unless a page or the OPML lists every feed.
        var result: RunResult
        /// The SOURCEs that were lists and could not be read or filtered.
        var listFailures: [String]
        /// The state as the run used it (a store in memory without one).
        var state: StateOptions
        /// Every feed's report counted.
        var tally: ReportTally
        /// A render in parts: the health report, written as far as the feeds go.
        var health: HealthReport.Writing? = nil
        /// A render without SOURCE: the hash of the feeds it served (`MergedFeedID`).
        var sources: UInt64? = nil
        /// A run that could not read all it shows: the state failed (a lost connection,
        /// a read that failed), not a damaged value of one feed. It writes nothing. A
        /// render shows only the state; a run, the stored entries of the feeds it did not
        /// get anew (`ReportTally.anyStoredEntriesLeftOut`).
        var unread = false
        /// A render's pages whose lists of subscriptions were made as it served its parts.
        var pages: PagesInParts.Made? = nil
    }

    /// What each `Aggregator.run` of one merge shares: the client, the
    /// progress line, the state and its records, and a shared state's claims.
    struct Fetching {
        let rules: TimelineRules
        let client: HTTPClient
        let progress: Progress
        var state: StateOptions
        var records: [String: FeedRecord]?
        var shared: SharedClaims?
        /// A run in parts: the feeds settled before this part, and in all (the progress line's).
        var progressBefore = 0
        var progressTotal: Int?

        /// A shared state: the hosts of the listed feeds that no other process holds are claimed.
        mutating func claim(_ list: SubscriptionList) async {
            guard var claims = shared else { return }
            state.claimedFeeds = await claims.claim(list.subscriptions.map(\.url), records: &records)
            state.leases = claims.leasesByFeed
            shared = claims
        }

        func run(_ list: SubscriptionList, continuing: consuming Timeline? = nil, firstIndex: Int = 0) async
            -> RunResult
        {
            await Aggregator.run(
                list, client: client, rules: rules, state: state, records: records, continuing: continuing,
                firstIndex: firstIndex
            ) { [progress, progressBefore, progressTotal] report, done, total in
                progress.update(report, done: progressBefore + done, total: progressTotal ?? total)
            }
        }
    }

    /// Step 4: every feed fetched, parsed and merged; then the feeds of the
    /// SOURCEs that were lists, into the same timeline; a shared state's hosts let go.
    /// - Parameters:
    ///   - packed: a render's list, packed (`readSources`).
    ///   - metrics: `--metrics`: each feed's fetch is counted into it.
    func fetch(
        _ list: inout SubscriptionList, packed: PackedSubscriptions?, filters: inout FilterSetup,
        client: HTTPClient, start: OpenedState, outputs: Outputs, metrics: MetricRegistry?
    ) async -> Merged {
        var fetching = Fetching(
            rules: rules, client: client, progress: Progress(enabled: !options.quiet && isatty(2) != 0),
            state: start.state ?? .withoutState(), records: start.records)
        var tally = ReportTally(metrics: metrics, stored: start.state != nil && !options.renderOnly)
        if options.renderOnly {
            return await render(
                packed ?? PackedSubscriptions(list), listed: start.listed, filters: &filters, fetching: &fetching,
                outputs: outputs, tally: tally)
        }
        fetching.shared = await SharedClaims(
            session: fetching.state.session, client: client, renderOnly: options.renderOnly, rules: rules)
        await fetching.claim(list)
        var result = await fetching.run(list)
        var listFailures: [String] = []
        if !result.subscriptionLists.isEmpty {
            listFailures = await mergeLists(into: &result, list: &list, filters: &filters, fetching: &fetching)
        }
        fetching.progress.finish()
        if let failure = await fetching.shared?.release(state: fetching.state, reports: &result.reports) {
            result.diagnostics.append(failure)
        }
        tally.add(result.reports)
        var merged = Merged(result: result, listFailures: listFailures, state: fetching.state, tally: tally)
        merged.unread = tally.anyStoredEntriesLeftOut
        return merged
    }

    /// SOURCEs that were subscription lists: their feeds are merged into the
    /// same timeline, after the others; `list` becomes the expanded list (its
    /// head, title, owner and link, and its warnings too).
    /// - Returns: what could not be read or filtered.
    private func mergeLists(
        into result: inout RunResult, list: inout SubscriptionList, filters: inout FilterSetup,
        fetching: inout Fetching
    ) async -> [String] {
        var listFailures: [String] = []
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
            await fetching.claim(more)
            let first = result.takeTimeline()
            var second = await fetching.run(more, continuing: first, firstIndex: list.subscriptions.count)
            result.reports += second.reports
            result.diagnostics += second.diagnostics
            result.timeline = second.takeTimeline()
        }
        list = expanded
        return listFailures
    }
}
