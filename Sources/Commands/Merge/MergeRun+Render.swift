import Aggregator
import FeedState
import Subscriptions
import TimelineMerge

extension MergeRun {
    /// How many feeds a render serves from the state at a time.
    static let renderPart = 10_000

    /// Step 4 of `feedmerge render`: every feed served from the state, a
    /// part at a time, into one timeline (each part placed after those
    /// before it, as one run would place them). A part's records and stored
    /// dates are read by URL, its feeds' lines of the health report written
    /// as soon as they are made, and its reports counted and let go (unless
    /// a page or the OPML lists every feed): what a render holds does not
    /// grow with the state, beyond the list itself.
    func render(
        _ list: SubscriptionList, fetching: inout Fetching, outputs: Outputs, tally: consuming ReportTally
    ) async -> Merged {
        let keepsEveryReport = destinations.contains { $0.kind == .page || $0.kind == .subscriptionList }
        fetching.state.readsListedFeedsOnly = true
        fetching.records = nil
        fetching.progressTotal = list.subscriptions.count
        var result = RunResult(timeline: Timeline(rules: rules), reports: [], diagnostics: [])
        var health: HealthReport.Writing?
        // (It cannot fail to start on a reservation not used yet; `writeHealth` would say so.)
        if let file = outputs.health {
            health = try? HealthReport.Writing(into: file, now: rules.now, keepDays: options.keepDays)
        }
        var tally = tally
        for first in stride(from: 0, to: list.subscriptions.count, by: Self.renderPart) {
            var part = SubscriptionList()
            part.subscriptions = Array(
                list.subscriptions[first..<min(first + Self.renderPart, list.subscriptions.count)])
            fetching.progressBefore = first
            var served = await fetching.run(part, continuing: result.takeTimeline(), firstIndex: first)
            result.timeline = served.takeTimeline()
            // A store that fails fails every part alike: said once.
            for diagnostic in served.diagnostics where !result.diagnostics.contains(diagnostic) {
                result.diagnostics.append(diagnostic)
            }
            tally.add(served.reports)
            health?.add(served.reports)
            result.reports += keepsEveryReport ? served.reports : served.reports.filter(ReportTally.names)
        }
        fetching.progress.finish()
        return Merged(result: result, listFailures: [], state: fetching.state, tally: tally, health: health)
    }
}
