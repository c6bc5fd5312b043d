import Aggregator
import EntryFilters
import FeedModel
import FeedState
import Subscriptions
import TimelineMerge

extension MergeRun {
    /// How much of the state a render holds at a time.
    struct RenderSizes {
        /// The feeds it serves at a time.
        var part = 10_000
        /// The feeds the state lists that a render without SOURCE reads at a time.
        var listedPage = 100_000
    }

    /// Step 4 of `feedmerge render`: every feed served from the state, a
    /// part at a time, into one timeline (each part placed after those
    /// before it, as one run would place them). A part's records and stored
    /// dates are read by URL, its feeds' objects of the health report
    /// written as soon as they are made, and its reports counted and let go:
    /// a page of the default theme makes its list of subscriptions as the
    /// parts come (`PagesInParts`); another theme's page, or the OPML, keeps
    /// every report. Without SOURCE, the
    /// feeds the state lists are read a page at a time too: what a render
    /// holds does not grow with the state. A state that fails while a
    /// render reads it (not a damaged value of one feed) ends the reading:
    /// the render writes nothing (`Merged.unread`).
    /// - Parameter listed: without SOURCE, the first page of the feeds the state lists.
    func render(
        _ list: PackedSubscriptions, listed: [String], filters: inout FilterSetup, fetching: inout Fetching,
        outputs: Outputs, tally: consuming ReportTally
    ) async -> Merged {
        var pages = PagesInParts(self)
        let keepsEveryReport = destinations.contains {
            ($0.kind == .page && pages == nil) || $0.kind == .subscriptionList
        }
        fetching.state.readsListedFeedsOnly = true
        fetching.records = nil
        var result = RunResult(timeline: Timeline(rules: rules))
        // (It cannot fail to start on a reservation not used yet; `writeHealth` would say so.)
        let health = outputs.health.flatMap {
            try? HealthReport.Writing(into: $0, now: rules.now, keepDays: options.keepDays)
        }
        var feeds = FeedsToRender(
            list: list, listed: listed, wholeState: options.rendersWholeState, page: renderSizes.listedPage)
        // Compiled when the sources were read: no error is left to find.
        let runFilters = (try? filters.runFilters(options.entryFilters)) ?? .init()
        var tally = tally
        var first = 0
        while true {
            var part = SubscriptionList()
            do throws(StateError) {
                part.subscriptions = try await feeds.next(
                    renderSizes.part, session: fetching.state.session, now: rules.now, filters: runFilters)
            } catch {
                result.diagnostics.append(
                    "state: the feeds the state lists cannot be read past the first \(first) (\(error))")
            }
            if part.subscriptions.isEmpty { break }
            fetching.progressBefore = first
            fetching.progressTotal = feeds.known
            var served = await fetching.run(part, continuing: result.takeTimeline(), firstIndex: first)
            result.timeline = served.takeTimeline()
            // A store that fails fails every part alike: said once.
            for diagnostic in served.diagnostics where !result.diagnostics.contains(diagnostic) {
                result.diagnostics.append(diagnostic)
            }
            tally.add(served.reports)
            health?.add(served.reports)
            pages?.add(served.reports, newest: result.timeline.newestByFeed, run: self)
            result.reports += keepsEveryReport ? served.reports : served.reports.filter(ReportTally.names)
            first += part.subscriptions.count
            // What the part held is freed; the allocator gives its pages back before the next part.
            _ = consume served
            releaseFreedMemory()
            // The render writes nothing now (`MergeRun.writeNothing`): it reads no further.
            if Self.unread(tally, result) { break }
        }
        fetching.progress.finish()
        let unread = Self.unread(tally, result)
        var merged = Merged(result: result, listFailures: [], state: fetching.state, tally: tally, health: health)
        merged.sources = feeds.sources.value
        merged.unread = unread
        merged.pages = pages?.made()
        return merged
    }

    /// Whether the state failed the render (not a damaged value of one feed): any
    /// diagnostic of a run that only reads says so too.
    private static func unread(_ tally: ReportTally, _ result: RunResult) -> Bool {
        tally.anyStateUnusable || !result.diagnostics.isEmpty
    }

    /// The feeds a render serves, a part at a time: the list's, or those the
    /// state lists, read a page at a time after the last one read (in byte
    /// order of their URLs: a feed listed meanwhile comes in its place or not at all).
    private struct FeedsToRender {
        let list: PackedSubscriptions
        let wholeState: Bool
        /// How many listed feeds a page holds.
        let pageSize: Int
        /// The list's feeds served so far.
        var served = 0
        /// The page of the state's listed feeds being served, and whether the state lists more.
        var page: ArraySlice<String>
        var more: Bool
        /// The last URL of the state's listed feeds read.
        var last: String?
        /// The URLs served so far, hashed in order (`MergedFeedID`: the list's, when it is served whole).
        var sources = MergedFeedID.Hasher()

        init(list: PackedSubscriptions, listed: [String], wholeState: Bool, page pageSize: Int) {
            self.list = list
            self.wholeState = wholeState
            self.pageSize = pageSize
            page = listed[...]
            more = listed.count == pageSize
            last = listed.last
        }

        /// The feeds known so far (the progress line's total).
        var known: Int { wholeState ? served + page.count : list.count }

        /// The next part (empty: none left).
        mutating func next(_ count: Int, session: StateSession, now: Timestamp, filters: EntryFilters)
            async throws(StateError) -> [Subscription]
        {
            guard wholeState else {
                let part = served..<min(served + count, list.count)
                served = part.upperBound
                let subscriptions = list.subscriptions(in: part)
                for subscription in subscriptions { sources.add(subscription.url) }
                return subscriptions
            }
            if page.isEmpty && more {
                let next = try await session.listedFeeds(now: now, after: last, limit: pageSize) ?? []
                page = next[...]
                more = next.count == pageSize
                last = next.last ?? last
            }
            let urls = page.prefix(count)
            page = page.dropFirst(urls.count)
            served += urls.count
            return urls.map { url in
                sources.add(url)
                var subscription = Subscription(url: url)
                subscription.filters = filters
                return subscription
            }
        }
    }
}
