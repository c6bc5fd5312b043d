import FeedFetch
import FeedModel
import FeedParse
import FeedState
import Foundation
import Subscriptions
import TimelineMerge

/// How one subscription fared in a run.
public struct FeedReport: Sendable {
    public enum Status: String, Sendable, Equatable {
        case ok
        case notModified = "not-modified"
        /// Not fetched: its Retry-After or cache lifetime has not passed.
        case deferred
        case failed
        /// 410 Gone, now or before: not fetched again unless forced.
        case gone
    }

    public var subscription: Subscription
    public var status: Status
    /// Why it failed, when it did.
    public var reason: String?
    public var httpStatus: Int?
    /// Entries the feed listed this run, and how many the timeline kept.
    public var entriesParsed: Int
    public var entriesKept: Int
    public var bytes: Int
    public var warnings: [String]
    /// Warnings that are shown without `--verbose` (a body cut at the size cap).
    public var notices: [String] = []
    /// With a state: the entries stored for the feed and the newest one's date.
    public var entriesStored: Int?
    public var newestEntry: Timestamp?
    public var record: FeedRecord?
    /// Where a permanent redirect (301/308) moved the feed in this run.
    public var movedTo: String?

    public var failed: Bool { status == .failed || status == .gone }
}

/// What a run keeps between runs, and how it treats what it kept.
public struct StateOptions {
    public var store: any StateStore
    /// Fetch even feeds that are gone or whose Retry-After has not passed.
    public var force = false
    public var keepDays = 90
    public var keepPerFeed = 200
    /// Collect what the health report needs (each feed's record and stored count).
    public var health = false
    /// A new feed's undated entries beyond its first N are its backlog: they
    /// are dated as history, not as news (see `Aggregator.dated`).
    public var newFeedItems = 10

    public init(store: any StateStore) { self.store = store }
}

/// The pipeline: one task-group child per subscription fetches and parses;
/// the parent stores what was learned and inserts each finished feed into
/// the timeline in subscription order (a feed that finishes early waits for
/// those listed before it), so the result never depends on which server
/// answers first. A sliding window of children bounds the work in flight.
public enum Aggregator {
    public static func run(
        _ list: SubscriptionList, client: HTTPClient, rules: TimelineRules, state: StateOptions? = nil,
        progress: @Sendable (FeedReport, _ done: Int, _ total: Int) -> Void = { _, _, _ in }
    ) async -> (Timeline, [FeedReport]) {
        var timeline = Timeline(rules: rules)
        var reports = [FeedReport?](repeating: nil, count: list.subscriptions.count)
        let records = (try? state?.store.feeds()) ?? [:]
        let plans = list.subscriptions.map {
            Plan(
                subscription: $0, record: records[$0.url], rules: rules, force: state?.force ?? false,
                alreadyRead: list.alreadyRead[$0.url])
        }
        let window = max(2, client.configuration.maximumConcurrentTransfers)
        var pending: [FeedUpdate] = []
        await withTaskGroup(of: (Int, Outcome).self) { group in
            // Outcomes are settled in subscription order, whichever server answers first: which
            // copy of a cross-post stays, and what a full timeline rejects, then depend on the
            // subscription list alone. A finished feed waits for those listed before it; at
            // most `4 * window` of them wait, so a slow feed near the top cannot make every
            // parsed feed of a long list wait in memory (the run slows down instead).
            var next = 0
            var nextToSettle = 0
            var finished: [Int: Outcome] = [:]
            func startMore() {
                while next < plans.count, next - nextToSettle < 4 * window,
                    next - nextToSettle - finished.count < window
                {
                    let index = next
                    let plan = plans[index]
                    group.addTask { (index, await plan.run(client: client)) }
                    next += 1
                }
            }
            startMore()
            var done = 0
            while let (index, outcome) = await group.next() {
                finished[index] = outcome
                while let outcome = finished.removeValue(forKey: nextToSettle) {
                    let index = nextToSettle
                    let report = settle(
                        outcome, plan: plans[index], index: index, state: state, timeline: &timeline,
                        pending: &pending)
                    reports[index] = report
                    done += 1
                    progress(report, done, plans.count)
                    nextToSettle += 1
                }
                startMore()
            }
        }
        if let state {
            try? state.store.record(all: pending)
            if state.health {  // the 304s' records changed in that last transaction
                for index in reports.indices where reports[index]?.status == .notModified {
                    reports[index]?.record = try? state.store.feed(list.subscriptions[index].url)
                }
            }
            let changed = reports.compactMap { $0?.status == .ok ? $0?.subscription.url : nil }
            try? state.store.prune(
                feeds: changed, keepDays: state.keepDays, keepPerFeed: state.keepPerFeed, now: rules.now)
        }
        return (timeline, reports.compactMap { $0 })
    }

    /// In the parent: store the outcome, then put the feed's entries (fresh
    /// or stored) into the timeline.
    private static func settle(
        _ outcome: Outcome, plan: Plan, index: Int, state: StateOptions?, timeline: inout Timeline,
        pending: inout [FeedUpdate]
    ) -> FeedReport {
        let subscription = plan.subscription
        var report = FeedReport(
            subscription: subscription, status: .ok, reason: nil, httpStatus: nil, entriesParsed: 0, entriesKept: 0,
            bytes: 0, warnings: [])
        var fresh: ParsedFeed?
        // Served from the state (304, failure, deferral): the source its last fresh fetch gave.
        var source = FeedSource(
            metadata: plan.record?.metadata, subscription: subscription,
            feedURL: absoluteURL(plan.record?.movedTo ?? subscription.url))
        switch outcome {
        case .fetched(let fetched):
            fresh = fetched.feed
            source = fetched.source
            report.httpStatus = fetched.status
            report.bytes = fetched.bytes
            report.entriesParsed = fetched.feed.entries.count
            report.warnings = fetched.feed.warnings
            report.notices = fetched.notice.map { [$0] } ?? []
            report.movedTo = fetched.movedTo
        case .notModified(let status, _):
            report.status = .notModified
            report.httpStatus = status
        case .skipped(let status):
            report.status = status
        case .failed(let failure):
            report.status = failure.gone ? .gone : .failed
            report.reason = failure.message
            report.httpStatus = failure.status
        }
        guard let state else {
            if let fresh {
                report.entriesKept = timeline.insert(
                    feed: withFolder(fresh, subscription), source: source, subscription: index)
            }
            return report
        }
        do {
            if let update = outcome.update(url: subscription.url, now: timeline.rules.now) {
                if case .notModified = outcome {
                    pending.append(update)  // nothing but timestamps: stored together at the end
                } else {
                    try state.store.record(update)
                }
            }
            let stored = try state.store.entries(of: subscription.url, notOlderThan: timeline.cutoff)
            // The restamping flag can only change when entries were stored.
            let record: FeedRecord?
            if case .fetched = outcome { record = try state.store.feed(subscription.url) } else { record = plan.record }
            if state.health {
                let summary = try state.store.summary(of: subscription.url)
                report.record = try state.store.feed(subscription.url)
                report.entriesStored = summary.count
                report.newestEntry = summary.newest.map { min($0, timeline.rules.now) }
            }
            let restamping = record?.restamping ?? false
            let feedFirstSeen = record?.firstSeen
            let entries = stored.map { entry in
                let backlog = entry.firstSeen == feedFirstSeen && entry.firstPosition >= state.newFeedItems
                return Self.dated(
                    entry, restamping: restamping, backlog: backlog, keepDays: state.keepDays, now: timeline.rules.now)
            }
            let metadata = fresh?.metadata ?? record?.metadata ?? FeedMetadata()
            let feed = ParsedFeed(format: fresh?.format ?? .rss20, metadata: metadata, entries: entries)
            report.entriesKept = timeline.insert(
                feed: withFolder(feed, subscription), source: source, subscription: index)
        } catch {
            report.status = .failed
            report.reason = "state: \(error)"
            if let fresh {
                report.entriesKept = timeline.insert(
                    feed: withFolder(fresh, subscription), source: source, subscription: index)
            }
        }
        return report
    }

    /// A stored entry with the date the timeline should use: undated ones
    /// by their first-seen time (the same on every run), restamping feeds'
    /// by the date first seen, future dates by the first-seen time. An
    /// undated entry of a new feed's backlog (it came with the feed's first
    /// fetch, beyond its first `newFeedItems`) is dated as history: its
    /// first-seen time minus the retention period, minus its position in seconds.
    static func dated(
        _ stored: StoredEntry, restamping: Bool, backlog: Bool = false, keepDays: Int = 90, now: Timestamp
    )
        -> Entry
    {
        var entry = stored.entry
        if restamping {
            entry.published = stored.firstDate ?? stored.firstSeen
            entry.updated = nil
        } else if entry.published == nil && entry.updated == nil {
            let history = Int64(keepDays) * 86_400 + Int64(stored.firstPosition)
            entry.published =
                backlog ? Timestamp(secondsSince1970: stored.firstSeen.secondsSince1970 - history) : stored.firstSeen
        }
        if let date = entry.published ?? entry.updated, date > now {
            entry.published = min(stored.firstSeen, now)
            entry.updated = nil
        }
        return entry
    }

    static func withFolder(_ feed: ParsedFeed, _ subscription: Subscription) -> ParsedFeed {
        guard !subscription.folder.isEmpty else { return feed }
        var result = feed
        let folder = Category(term: subscription.folder.joined(separator: "/"))
        for index in result.entries.indices where !result.entries[index].categories.contains(folder) {
            result.entries[index].categories.append(folder)
        }
        return result
    }

    /// A local path as a `file://` URL (outputs carry absolute URLs only).
    static func absoluteURL(_ url: String) -> String {
        url.contains("://") ? url : URL(fileURLWithPath: url).absoluteString
    }
}
