import Basics
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
    /// Warnings that are shown without `--verbose`: a body cut at the size
    /// cap; a state that failed for this feed (its status stays that of the
    /// fetch: its fresh entries still reached the timeline).
    public var notices: [String] = []
    /// With a state, from before this run: when the feed began failing (nil:
    /// it worked, or is new) and when it was last fetched. What a quiet run
    /// says of a failure depends on them.
    public var failingBefore: Timestamp?
    public var fetchedBefore: Timestamp?
    /// With a state: the entries stored for the feed and the newest one's date.
    public var entriesStored: Int?
    public var newestEntry: Timestamp?
    public var record: FeedRecord? {
        get { recordBox?.value }
        set { recordBox = newValue.map(Boxed.init) }
    }
    /// The feed as the timeline credits it (its title, links, authors):
    /// from this fetch, else from the state's last fresh fetch.
    public var source: FeedSource? {
        get { sourceBox?.value }
        set { sourceBox = newValue.map(Boxed.init) }
    }
    // Out of line: a run holds a report per subscription, in arrays it copies.
    private var recordBox: Boxed<FeedRecord>?
    private var sourceBox: Boxed<FeedSource>?
    /// Where a permanent redirect (301/308) moved the feed in this run.
    public var movedTo: String?
    /// The state failed for this feed (its notices say how): the run says so
    /// even with `--quiet`, and its exit status says the state is unusable.
    public var stateFailed = false
    /// What the run learned of the feed is not in the state: storing it
    /// failed, or its fetch was withdrawn with its host (`Outcome.withdrawn`).
    /// (An outcome a shared state's fence dropped is the store's to say:
    /// `SharedStateStore.takeDroppedOutcomes`.)
    public var notStored = false
    /// A fetched feed lists every entry the state had of it: none can be pruned.
    var listsEveryStoredEntry = false
    /// The feed was served from the state (not fetched) and its stored entries
    /// were found damaged: its validators are forgotten, so that its next
    /// fetch is whole and replaces them (a 304 would serve the damage for good).
    var historyDamaged = false

    /// Gone (410) on an earlier run, so not asked again: said once, when it
    /// answered 410; from then on counted as gone, not as a failure.
    public var goneBefore = false

    /// Failed this run: an error, or a 410 answered now (a feed known to be
    /// gone is not asked, and does not fail every later run).
    public var failed: Bool { status == .failed || (status == .gone && !goneBefore) }

    init(subscription: Subscription, status: Status) {
        self.subscription = subscription
        self.status = status
        entriesParsed = 0
        entriesKept = 0
        bytes = 0
        warnings = []
    }

    /// Records that the state failed for this feed: a notice (shown with
    /// and without `--verbose`, and with `--quiet`) and the flag.
    mutating func noteStateFailure(_ what: String) {
        let notice = "state: " + what
        warnings.append(notice)
        notices.append(notice)
        stateFailed = true
    }

    /// Records that the feed's outcome could not be stored.
    mutating func noteNotStored(_ what: String) {
        noteStateFailure(what)
        notStored = true
    }
}

/// What a run keeps between runs, and how it treats what it kept.
public struct StateOptions {
    public var store: any StateStore
    /// Fetch even feeds that are gone or whose Retry-After has not passed.
    public var force = false
    public var keepDays = StateOptions.defaultKeepDays
    public var keepPerFeed = StateOptions.defaultKeepPerFeed
    /// Collect what the health report needs (each feed's record and stored count).
    public var health = false
    /// A new feed's undated entries beyond its first N are its backlog: they
    /// are dated as history, not as news (see `EntryDating.isBacklog`).
    public var newFeedItems = StateOptions.defaultNewFeedItems
    /// Fetch only the feeds `schedule` says are due (`--due-only`); the others are served from the state.
    public var dueOnly = false
    public var schedule = FeedSchedule()
    /// In a shared state, the feeds whose host leases this run holds: any
    /// other is served from the state (another process fetches it). nil: the
    /// run fetches every feed.
    public var claimedFeeds: Set<String>?
    /// Fetch nothing: every feed is served from the state (`feedmerge render`).
    public var servesOnly = false
    /// Read what bounds every feed's stored entries' dates at the start (a
    /// worker, which serves no feed from the state, needs none of it).
    public var readsStoredDates = true

    /// The defaults, written once: the command line shows and uses these.
    public static let defaultKeepDays = 90
    public static let defaultKeepPerFeed = 200
    public static let defaultNewFeedItems = 10

    public init(store: any StateStore) { self.store = store }

    /// A `--no-state` run's: a store in memory that keeps no entries.
    public static func withoutState() -> StateOptions { StateOptions(store: MemoryStateStore(keepingEntries: false)) }
}

/// What a run gives back: the timeline, one report per subscription, and
/// what went wrong beyond any one feed (a state that could not be read or
/// written), for the summary and the health report.
public struct RunResult {
    public var timeline: Timeline
    public var reports: [FeedReport]
    public var diagnostics: [String]
    /// SOURCEs that turned out to be subscription lists (`Subscription.mayBeList`),
    /// with the document each gave: the caller expands them and runs again.
    public var subscriptionLists: [(subscription: Subscription, document: [UInt8])] = []

    /// The timeline's entries, moved out: the result keeps an empty
    /// timeline, so the entries are not copied on their way out (a copy
    /// of the timeline left here would make taking them copy them all).
    public mutating func takeEntries() -> [MergedEntry] {
        takeTimeline().takeEntries()
    }

    /// The timeline, moved out (the result keeps an empty one).
    public mutating func takeTimeline() -> Timeline {
        var taken = Timeline(rules: timeline.rules)
        swap(&taken, &timeline)
        return taken
    }
}

/// The pipeline: one task-group child per subscription fetches and parses;
/// the parent stores what was learned and inserts each finished feed into
/// the timeline in subscription order (a feed that finishes early waits for
/// those listed before it), so the result never depends on which server
/// answers first. A sliding window of children bounds the work in flight.
/// Every run has a store (`--no-state`: one in memory); state failures
/// never stop a run: they become notices and diagnostics.
public enum Aggregator {
    /// - Parameters:
    ///   - known: the store's feed records, when the caller has read them
    ///     already (else they are read here).
    ///   - continuing: a second run's subscriptions (those of a SOURCE that
    ///     turned out to be a list) go into the first run's timeline, placed
    ///     after every subscription before them (`firstIndex`).
    public static func run(
        _ list: SubscriptionList, client: HTTPClient, rules: TimelineRules,
        state: StateOptions = .withoutState(), records known: [String: FeedRecord]? = nil,
        continuing: consuming Timeline? = nil, firstIndex: Int = 0,
        progress: @escaping @Sendable (FeedReport, _ done: Int, _ total: Int) -> Void = { _, _, _ in }
    ) async -> RunResult {
        var timeline = (consume continuing) ?? Timeline(rules: rules)
        var subscriptionLists: [(subscription: Subscription, document: [UInt8])] = []
        var reports = [FeedReport?](repeating: nil, count: list.subscriptions.count)
        var diagnostics: [String] = []
        let dating = EntryDating(rules: rules, keepDays: state.keepDays, newFeedItems: state.newFeedItems)
        // Every call to the store runs on the run's state thread (see StateThread).
        let stateThread = StateThread(inline: !state.store.blocksCallers)
        defer { stateThread.stop() }
        var records: [String: FeedRecord] = [:]
        var recordsKnown = true
        var storedDates: [String: StoredDates] = [:]
        await stateThread.run {
            do {
                records = try known ?? state.store.feeds()
            } catch {
                records = [:]
                recordsKnown = false
                diagnostics.append(
                    "state: the feed records cannot be read (\(error)): every feed is fetched unconditionally, "
                        + "without its validators, Retry-After or cache lifetime")
            }
            adoptMovedRecords(of: list, records: &records, store: state.store, diagnostics: &diagnostics)
            // What bounds each feed's stored entries' dates: a feed served from the state whose
            // entries all come too late for the timeline is not read. (Not known: it is read.)
            if state.store.keepsEntries && state.readsStoredDates {
                do {
                    storedDates = try state.store.storedDates()
                } catch {
                    diagnostics.append(
                        "state: what bounds the stored entries' dates cannot be read (\(error)): every feed served "
                            + "from the state is read whole")
                }
            }
        }
        let plans = list.subscriptions.map {
            Plan(
                subscription: $0, record: records[$0.url], rules: rules, force: state.force,
                alreadyRead: list.alreadyRead[$0.url], keepsEntries: state.store.keepsEntries,
                serveOnly: state.servesOnly || state.claimedFeeds.map { [url = $0.url] in !$0.contains(url) } ?? false,
                due: state.dueOnly
                    ? Plan.dueCheck(
                        record: records[$0.url], stored: storedDates[$0.url], state: state, now: rules.now) : nil)
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
            // Touched by the state thread's jobs only, as are the timeline and `reports` until
            // the last job has run.
            var done = 0
            while let (index, outcome) = await group.next() {
                finished[index] = outcome
                // Every outcome that can be settled now, in one job on the state thread, which the
                // parent does not wait for: it goes on starting and receiving feeds.
                var ready: [(index: Int, outcome: Handover<Outcome>)] = []
                var lists = 0
                while let outcome = finished.removeValue(forKey: nextToSettle) {
                    let index = nextToSettle
                    nextToSettle += 1
                    if case .subscriptionList(let document) = outcome {
                        lists += 1
                        subscriptionLists.append((plans[index].subscription, document))
                        continue
                    }
                    ready.append((index, Handover(outcome)))
                }
                if !ready.isEmpty || lists > 0 {
                    await stateThread.enqueue {
                        done += lists
                        for (index, outcome) in ready {
                            let plan = plans[index]
                            let report = settle(
                                outcome.take(), plan: plan, index: firstIndex + index, state: state,
                                recordsKnown: recordsKnown, storedDates: storedDates[plan.subscription.url],
                                dating: dating, timeline: &timeline, pending: &pending)
                            done += 1
                            reports[index] = report
                            progress(report, done, plans.count)
                        }
                    }
                }
                startMore()
            }
        }
        await stateThread.run {
            do {
                let unstored = try state.store.commit()
                if !unstored.isEmpty {
                    for index in reports.indices {
                        guard let url = reports[index]?.subscription.url, let error = unstored[url] else { continue }
                        reports[index]?.noteNotStored("its fetch cannot be recorded: \(error)")
                    }
                }
            } catch {
                diagnostics.append(
                    "state: the last feeds' outcomes cannot be stored (\(error)); they are fetched whole next time")
                // Which were stored before is not known: none is counted stored.
                for index in reports.indices
                where ![FeedReport.Status.deferred, .notModified].contains(reports[index]?.status) {
                    reports[index]?.notStored = true
                }
            }
            do {
                try state.store.record(all: pending)
            } catch {
                diagnostics.append("state: the not-modified feeds' fetch times cannot be stored (\(error))")
                let unstored = Set(pending.map(\.url))
                for index in reports.indices
                where reports[index].map({ unstored.contains($0.subscription.url) }) ?? false {
                    reports[index]?.notStored = true
                }
            }
            let damaged = reports.compactMap { $0?.historyDamaged == true ? $0?.subscription.url : nil }
            if !damaged.isEmpty {
                do {
                    try state.store.forgetValidators(of: damaged)
                } catch {
                    diagnostics.append(
                        "state: the validators of feeds with damaged entries cannot be dropped (\(error))")
                }
            }
            if state.health {  // every outcome is stored now
                for index in reports.indices where reports[index] != nil {
                    collectHealth(of: &reports[index]!, store: state.store, now: rules.now)
                }
            }
            // Only entries a feed no longer lists are ever pruned.
            let changed = reports.compactMap { report in
                report?.status == .ok && report?.listsEveryStoredEntry == false ? report?.subscription.url : nil
            }
            do {
                try state.store.prune(
                    feeds: changed, keepDays: state.keepDays, keepPerFeed: state.keepPerFeed, now: rules.now)
            } catch {
                diagnostics.append("state: old entries cannot be pruned (\(error))")
            }
        }
        return RunResult(
            timeline: timeline, reports: reports.compactMap { $0 }, diagnostics: diagnostics,
            subscriptionLists: subscriptionLists)
    }

    /// A subscription the state does not know under its URL (or knows only
    /// as listed, never fetched), but whose URL
    /// a known feed moved to (a 301 written back by `--update-opml`, or the
    /// list edited by hand): the feed's record and entries continue under
    /// the new URL, so its entries keep their first-seen dates.
    private static func adoptMovedRecords(
        of list: SubscriptionList, records: inout [String: FeedRecord], store: any StateStore,
        diagnostics: inout [String]
    ) {
        let movedFrom = movedRecords(records)
        guard !movedFrom.isEmpty else { return }
        let listed = Set(list.subscriptions.map(\.url))
        // A record never fetched is no history (a shared state lists a feed before it is fetched).
        for subscription in list.subscriptions where records[subscription.url]?.lastFetch == nil {
            guard let old = movedFrom[subscription.url], !listed.contains(old), var record = records[old] else {
                continue
            }
            do {
                try store.rename(feed: old, to: subscription.url)
            } catch {
                diagnostics.append("state: \(old) moved to \(subscription.url), but its state cannot follow (\(error))")
                continue
            }
            records[old] = nil
            record.url = subscription.url
            record.movedTo = nil
            records[subscription.url] = record
        }
    }

    /// Which stored feed each new URL continues (target → old URL). When
    /// several moved to the same URL, the one that last fetched well wins
    /// (its history is the freshest), then the first by URL: the choice
    /// depends on the state alone, never on a dictionary's order, so the
    /// same state gives the same outputs.
    static func movedRecords(_ records: [String: FeedRecord]) -> [String: String] {
        var movedFrom: [String: String] = [:]
        let moved = records.filter { url, record in record.movedTo.map { $0 != url } ?? false }
        for (url, record) in moved.sorted(by: { $0.key < $1.key }) {
            guard let target = record.movedTo else { continue }
            if let chosen = movedFrom[target], let other = records[chosen],
                (record.lastSuccess?.secondsSince1970 ?? .min) <= (other.lastSuccess?.secondsSince1970 ?? .min)
            {
                continue
            }
            movedFrom[target] = url
        }
        return movedFrom
    }

    /// In the parent: store the outcome, then put the feed's entries (fresh
    /// and remembered) into the timeline. A state that fails for this feed
    /// leaves a notice; its fresh entries still go in (dated as without a state).
    /// - Parameter storedDates: what bounds the feed's stored entries' dates, if known.
    private static func settle(
        _ outcome: consuming Outcome, plan: Plan, index: Int, state: StateOptions, recordsKnown: Bool,
        storedDates: StoredDates?, dating: EntryDating, timeline: inout Timeline, pending: inout [FeedUpdate]
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
        case .notModified(let status, _, let movedTo):
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
                    &fetched, plan: plan, state: state, recordsKnown: recordsKnown, dating: dating,
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
                notFetched: outcome, plan: plan, state: state, dating: dating, cutoff: dating.cutoff(timeline.cutoff),
                readingEntries: readingEntries, feedDate: plan.record?.metadata?.dateForUndatedEntries,
                pending: &pending,
                report: &report)
            report.entriesKept = timeline.insert(
                deferred: entries, dates: dates, source: source, subscription: index)
        }
        return report
    }

    static func withFolder(_ feed: consuming ParsedFeed, _ subscription: Subscription) -> ParsedFeed {
        guard let folder = folderCategory(of: subscription) else { return feed }
        var result = consume feed  // moved, so the categories are added without copying the entries
        for index in result.entries.indices { file(&result.entries[index], in: folder) }
        return result
    }

    /// The category an OPML folder gives its subscriptions' entries; nil outside any folder.
    static func folderCategory(of subscription: Subscription) -> Category? {
        subscription.folder.isEmpty ? nil : Category(term: subscription.folder.joined(separator: "/"))
    }

    static func file(_ entry: inout Entry, in folder: Category) {
        if !entry.categories.contains(folder) { entry.categories.append(folder) }
    }

    /// A local path as a `file://` URL (outputs carry absolute URLs only).
    static func absoluteURL(_ url: String) -> String {
        url.contains("://") ? url : URL(fileURLWithPath: url).absoluteString
    }
}
