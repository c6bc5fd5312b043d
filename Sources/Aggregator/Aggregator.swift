import Basics
import FeedFetch
import FeedModel
import FeedParse
import FeedState
import Foundation
import Subscriptions
import TimelineMerge
import WebSub

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
    /// The WebSub hubs and topic the fetched feed advertises (nil: none, or not fetched).
    public var websub: WebSubAdvert?
    /// The state failed for this feed (its notices say how): the run says so
    /// even with `--quiet`, and its exit status says the state is unusable.
    public var stateFailed = false
    /// The state itself failed for this feed (a lost connection, a read
    /// that failed), not a value of it found damaged: what the state holds
    /// of the feed is not known, so a render, which shows only the state,
    /// cannot show it.
    public var stateUnusable = false
    /// Its stored entries, which the outputs show (a 304, a feed not asked),
    /// could not be read because the state failed (not a damaged value):
    /// outputs written now would lack them.
    public var storedEntriesLeftOut = false
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

    /// Not asked this run because it is failing and its backoff (or its
    /// server's Retry-After) is not over: not a new failure, not fine either.
    public var stillFailing: Bool { status == .deferred && failingBefore != nil }

    init(subscription: Subscription, status: Status) {
        self.subscription = subscription
        self.status = status
        entriesParsed = 0
        entriesKept = 0
        bytes = 0
        warnings = []
    }

    /// Records that the state failed for this feed: a notice (shown with
    /// and without `--verbose`, and with `--quiet`) and the flags.
    /// - Parameter kind: the failure's (`.damaged`: a stored value that does not read back).
    mutating func noteStateFailure(_ what: String, kind: StateError.Kind = .unusable) {
        let notice = "state: " + what
        warnings.append(notice)
        notices.append(notice)
        stateFailed = true
        if kind != .damaged { stateUnusable = true }
    }

    /// Records that the feed's outcome could not be stored.
    mutating func noteNotStored(_ what: String) {
        noteStateFailure(what)
        notStored = true
    }
}

/// What a run keeps between runs, and how it treats what it kept.
public struct StateOptions: Sendable {
    /// The store, behind the thread its calls run on.
    public var session: StateSession
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
    /// In a shared state, the lease each feed this run claimed is written
    /// under (`StoreRun`): it writes nothing of any other feed, and nothing
    /// once a lease is lost. nil: the run writes every feed.
    public var leases: [String: HostLease]?
    /// Fetch nothing: every feed is served from the state (`feedmerge render`).
    public var servesOnly = false
    /// Read what bounds every feed's stored entries' dates at the start (a
    /// worker, which serves no feed from the state, needs none of it).
    public var readsStoredDates = true
    /// Read the records (and stored dates) of the run's own feeds only, by
    /// their URLs, not every feed the state knows: a render in parts
    /// (`StateReading.feeds(_:)`). A feed's record that moved to a listed
    /// URL is then not found.
    public var readsListedFeedsOnly = false

    /// The defaults, written once: the command line shows and uses these.
    public static let defaultKeepDays = 90
    public static let defaultKeepPerFeed = 200
    public static let defaultNewFeedItems = 10

    public init(session: StateSession) { self.session = session }

    /// Options over a session of its own for `store`, which is given over to it.
    public init(store: sending any StateStore) { session = StateSession(store) }

    /// A `--no-state` run's: a store in memory that keeps no entries.
    public static func withoutState() -> StateOptions { StateOptions(store: MemoryStateStore(keepingEntries: false)) }
}

/// What a run gives back: the timeline, one report per subscription, and
/// what went wrong beyond any one feed (a state that could not be read or
/// written), for the summary and the health report.
public struct RunResult: Sendable {
    public var timeline: Timeline
    public var reports: [FeedReport]
    public var diagnostics: [String]
    /// SOURCEs that turned out to be subscription lists (`Subscription.mayBeList`),
    /// with the document each gave: the caller expands them and runs again.
    public var subscriptionLists: [(subscription: Subscription, document: [UInt8])] = []

    public init(
        timeline: Timeline, reports: [FeedReport] = [], diagnostics: [String] = [],
        subscriptionLists: [(subscription: Subscription, document: [UInt8])] = []
    ) {
        self.timeline = timeline
        self.reports = reports
        self.diagnostics = diagnostics
        self.subscriptionLists = subscriptionLists
    }

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
    /// One run over `list`: what the state knows of its feeds (`start`),
    /// every feed fetched and settled into the timeline (`fetchAndSettle`),
    /// then the store's end of the run (`commitRun`).
    /// - Parameters:
    ///   - known: the store's feed records, when the caller has read them
    ///     already (else they are read here).
    ///   - continuing: a second run's subscriptions (those of a SOURCE that
    ///     turned out to be a list) go into the first run's timeline, placed
    ///     after every subscription before them (`firstIndex`).
    public static func run(
        _ list: SubscriptionList, client: HTTPClient, rules: TimelineRules,
        state: StateOptions = .withoutState(), records known: [String: FeedRecord]? = nil,
        continuing: Timeline? = nil, firstIndex: Int = 0,
        progress: @escaping @Sendable (FeedReport, _ done: Int, _ total: Int) -> Void = { _, _, _ in }
    ) async -> RunResult {
        await run(
            list, client: client, rules: rules, state: state, records: known, continuing: continuing,
            firstIndex: firstIndex, progress: progress, on: state.session)
    }

    /// The run on the session's thread: the store is called there, and the outcomes are settled
    /// there, while the fetching and parsing children run on Swift's pool.
    private static func run(
        _ list: SubscriptionList, client: HTTPClient, rules: TimelineRules, state: StateOptions,
        records known: [String: FeedRecord]?, continuing: consuming Timeline?, firstIndex: Int,
        progress: @escaping @Sendable (FeedReport, _ done: Int, _ total: Int) -> Void,
        on session: isolated StateSession
    ) async -> RunResult {
        let dating = EntryDating(rules: rules, keepDays: state.keepDays, newFeedItems: state.newFeedItems)
        let run = session.beginRun(fencedBy: state.leases)
        let start = Self.start(list, known: known, state: state, run: run, now: rules.now)
        var settled = await fetchAndSettle(
            plans(list, start: start, rules: rules, state: state), into: (consume continuing) ?? Timeline(rules: rules),
            client: client, start: start, state: state, dating: dating, firstIndex: firstIndex, run: run,
            progress: progress, on: session)
        var diagnostics = start.diagnostics
        commitRun(
            &settled.reports, pending: settled.pending, state: state, run: run, now: rules.now,
            // A run that writes nothing has the records it read at its start.
            recordsRead: state.servesOnly ? start.records : nil, diagnostics: &diagnostics)
        return RunResult(
            timeline: settled.timeline, reports: settled.reports.compactMap { $0 }, diagnostics: diagnostics,
            subscriptionLists: settled.subscriptionLists)
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
