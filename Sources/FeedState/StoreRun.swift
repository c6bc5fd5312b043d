import FeedModel

/// One run's calls to its store, in the order their types allow: a run is
/// begun on a session (`StateSession.beginRun`, on the session's thread);
/// a fetched feed's outcome is recorded only with the history read before
/// it (`HistoryRead`, used up by `record(_:after:)`), so its entries are
/// dated by what the state held before this run; and `commit` ends the run:
/// it consumes it (nothing is recorded after), and gives back what the
/// health report and pruning read (`CommittedRun`).
public struct StoreRun: ~Copyable {
    private let store: any StateStore

    init(_ store: any StateStore) { self.store = store }

    public var keepsEntries: Bool { store.keepsEntries }

    public func feeds() throws(StateError) -> [String: FeedRecord] { try store.feeds() }

    public func feed(_ url: String) throws(StateError) -> FeedRecord? { try store.feed(url) }

    public func storedDates() throws(StateError) -> [String: StoredDates] { try store.storedDates() }

    /// A feed's record and entries continue under a new URL (before any of its outcomes).
    public func rename(feed url: String, to newURL: String) throws(StateError) {
        try store.rename(feed: url, to: newURL)
    }

    /// A feed's history, read before its outcome is recorded; a history
    /// that cannot be read is a read too (the outcome is still recorded:
    /// a damaged document is replaced by the feed's listing).
    public func readHistory(of url: String) -> HistoryRead {
        do {
            return HistoryRead(url: url, history: .success(try store.history(of: url)))
        } catch {
            return HistoryRead(url: url, history: .failure(error))
        }
    }

    /// A feed the state holds nothing of (the run read every record, none of it): nothing is read.
    public func newFeed(_ url: String) -> HistoryRead { HistoryRead(url: url, history: .success(.empty)) }

    /// The stored entries of a feed the run did not fetch (served from the state).
    public func storedEntries(of url: String) throws(StateError) -> FeedHistory { try store.history(of: url) }

    /// A fetched feed's outcome, after its history was read.
    public func record(_ update: FeedUpdate, after read: consuming HistoryRead) throws(StateError) {
        precondition(read.url == update.url, "an outcome is recorded after its own feed's history")
        try store.record(update)
    }

    /// An outcome that stores no entries (not modified, failed, not asked).
    public func record(_ update: FeedUpdate) throws(StateError) {
        if case .fetched = update.outcome {
            preconditionFailure("a fetched feed's outcome is recorded after its history is read")
        }
        try store.record(update)
    }

    /// Ends the run: its outcomes stored, then `pending` (the not-modified
    /// feeds', stored together).
    public consuming func commit(pending: [FeedUpdate]) -> CommittedRun {
        let committed = Result { () throws(StateError) in try store.commit() }
        let pendingStored = Result { () throws(StateError) in try store.record(all: pending) }
        return CommittedRun(store: store, unstored: committed, pendingStored: pendingStored)
    }
}

/// What a run read of a feed's history before recording its outcome.
public struct HistoryRead: ~Copyable {
    public let url: String
    public let history: Result<FeedHistory, StateError>
}

/// A run whose outcomes are stored: what the health report and pruning read.
public struct CommittedRun: ~Copyable {
    private let store: any StateStore
    /// The feeds whose outcomes could not be stored, by URL (a failure: which were is not known).
    public let unstored: Result<[String: StateError], StateError>
    /// Whether the not-modified feeds' outcomes were stored.
    public let pendingStored: Result<Void, StateError>

    init(
        store: any StateStore, unstored: Result<[String: StateError], StateError>,
        pendingStored: Result<Void, StateError>
    ) {
        self.store = store
        self.unstored = unstored
        self.pendingStored = pendingStored
    }

    /// Feeds whose stored entries were found damaged fetch whole next time.
    public func forgetValidators(of urls: [String]) throws(StateError) { try store.forgetValidators(of: urls) }

    /// A feed's stored entries, counted, and its newest.
    public func summary(of url: String) throws(StateError) -> (count: Int, newest: Timestamp?) {
        try store.history(of: url).summary
    }

    public func feed(_ url: String) throws(StateError) -> FeedRecord? { try store.feed(url) }

    /// The run's last call: entries the feeds no longer list, past retention, removed.
    public consuming func prune(feeds: [String]?, keepDays: Int, keepPerFeed: Int, now: Timestamp) throws(StateError) {
        try store.prune(feeds: feeds, keepDays: keepDays, keepPerFeed: keepPerFeed, now: now)
    }
}

extension StateSession {
    /// A run's calls to the store, on the session's thread.
    public func beginRun() -> StoreRun { StoreRun(store) }
}
