import FeedFetch
import FeedModel
import FeedState
import Foundation
import Subscriptions
import TimelineMerge

extension Aggregator {
    /// What the parent settled: the timeline, each subscription's report,
    /// the not-modified feeds' outcomes left to store together, and the
    /// SOURCEs that turned out to be lists.
    struct Settled {
        var timeline: Timeline
        var reports: [FeedReport?]
        var pending: [FeedUpdate]
        var subscriptionLists: [(subscription: Subscription, document: [UInt8])]
    }

    /// Each plan run in a task-group child (a sliding window of them), and
    /// each outcome settled by the parent, on the session's thread, in
    /// subscription order (`SettlingOrder`): stored, dated, and put into the
    /// timeline. The parent starts the next children before it settles, so
    /// they fetch and parse on Swift's pool while it works with the store.
    static func fetchAndSettle(
        _ plans: [Plan], into timeline: consuming Timeline, client: HTTPClient, start: Start, state: StateOptions,
        dating: EntryDating, firstIndex: Int, run: borrowing StoreRun,
        progress: @escaping @Sendable (FeedReport, _ done: Int, _ total: Int) -> Void,
        on session: isolated StateSession
    ) async -> Settled {
        var settled = Settled(
            timeline: consume timeline, reports: [FeedReport?](repeating: nil, count: plans.count), pending: [],
            subscriptionLists: [])
        var done = 0
        var order = SettlingOrder(plans: plans.count, window: max(2, client.configuration.maximumConcurrentTransfers))
        // The body is isolated to the session because it calls `settle`, which is: after each
        // `next()` it resumes on the session's thread (a body that used nothing of the session's
        // would run on Swift's pool: `StateSessionTests` checks where the store is called).
        await withTaskGroup(of: (Int, Outcome).self) { group in
            func startMore() {
                while let index = order.nextToStart() {
                    let plan = plans[index]
                    group.addTask { (index, await plan.run(client: client)) }
                }
            }
            startMore()
            while let (index, outcome) = await group.next() {
                order.arrived(index, outcome)
                while let (index, outcome) = order.nextReady() {
                    startMore()
                    let plan = plans[index]
                    if case .subscriptionList(let document) = outcome {
                        settled.subscriptionLists.append((plan.subscription, document))
                        done += 1
                        continue
                    }
                    let report = settle(
                        outcome, plan: plan, index: firstIndex + index, run: run,
                        recordsKnown: start.recordsKnown, storedDates: start.storedDates[plan.subscription.url],
                        dating: dating, timeline: &settled.timeline, pending: &settled.pending, on: session)
                    done += 1
                    settled.reports[index] = report
                    progress(report, done, plans.count)
                }
                startMore()
            }
        }
        return settled
    }

    /// In the parent: store the outcome, then put the feed's entries (fresh
    /// and remembered) into the timeline. A state that fails for this feed
    /// leaves a notice; its fresh entries still go in (dated as without a state).
    /// - Parameter storedDates: what bounds the feed's stored entries' dates, if known.
    private static func settle(
        _ outcome: consuming Outcome, plan: Plan, index: Int, run: borrowing StoreRun, recordsKnown: Bool,
        storedDates: StoredDates?, dating: EntryDating, timeline: inout Timeline, pending: inout [FeedUpdate],
        on session: isolated StateSession
    ) -> FeedReport {
        let subscription = plan.subscription
        var report = FeedReport(subscription: subscription, status: .ok)
        report.failingBefore = plan.record?.failingSince
        report.fetchedBefore = plan.record?.lastFetch
        // Served from the state (304, failure, deferral): the source its last fresh fetch gave.
        var source = FeedSource(
            metadata: plan.record?.metadata, subscription: subscription,
            feedURL: absoluteURL(plan.record?.movedTo ?? subscription.url))
        switch outcome {
        case .fetched(let fetched):
            source = fetched.source
            report.httpStatus = fetched.status
            report.bytes = fetched.bytes
            report.entriesParsed = fetched.feed.entries.count
            report.warnings = fetched.feed.warnings
            report.notices = fetched.notice.map { [$0] } ?? []
            report.movedTo = fetched.movedTo
            report.websub = fetched.websub
        case .notModified(let status, _, let movedTo, _, _):
            report.status = .notModified
            report.httpStatus = status
            report.movedTo = movedTo
        case .skipped(let status):
            report.status = status
            report.goneBefore = status == .gone
            // Served from the state as its last fetch left it (`feedmerge render`): failing, it says why.
            if status == .failed { report.reason = plan.record?.lastError }
            if plan.servedOnly, let stored = plan.record?.lastReport {
                report.take(stored)
            }
        case .failed(let failure):
            report.status = failure.gone ? .gone : .failed
            report.reason = failure.message
            report.httpStatus = failure.status
        case .withdrawn(let message):
            report.status = .deferred
            report.reason = message
            report.notStored = true
        case .subscriptionList:
            break  // taken apart by `run`, never settled
        }
        report.source = source
        // The outcome is consumed here, and a fetched feed taken out of it before its entries
        // are dated where they are (inside the `switch`, the outcome would still share them:
        // writing one would copy them all); the timeline then moves them out of the only copy.
        if var fetched = outcome.takeFetched() {
            let dates =
                remember(
                    &fetched, plan: plan, run: run, recordsKnown: recordsKnown, dating: dating,
                    cutoff: dating.cutoff(timeline.cutoff), report: &report)
                ?? dating.dates(ofFresh: &fetched.feed)
            report.entriesKept = timeline.insert(
                feed: withFolder((consume fetched).feed, subscription), dates: dates, source: source,
                subscription: index)
        } else if case .subscriptionList = outcome {
            return report  // taken apart by `run`, never settled
        } else {
            // Its stored entries are read unless their facts say none could get in (or none is stored).
            var readingEntries = true
            if let storedDates {
                let latest = dating.latestDate(of: storedDates)
                readingEntries = latest.map { timeline.mayAdmit(datedNoLaterThan: $0, subscription: index) } ?? false
            }
            let (entries, dates) = remember(
                notFetched: outcome, plan: plan, run: run, dating: dating, cutoff: dating.cutoff(timeline.cutoff),
                readingEntries: readingEntries, feedDate: plan.record?.metadata?.dateForUndatedEntries,
                pending: &pending,
                report: &report)
            report.entriesKept = timeline.insert(
                deferred: entries, dates: dates, source: source, subscription: index)
        }
        return report
    }
}
