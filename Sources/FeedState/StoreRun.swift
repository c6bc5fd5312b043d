import FeedModel

/// One run's calls to its store, in the order their types allow: a run is
/// begun on a session (`StateSession.beginRun`, on the session's thread);
/// a fetched feed's outcome is recorded only with the history read before
/// it (`HistoryRead`, used up by `record(_:after:)`), so its entries are
/// dated by what the state held before this run; and `commit` ends the run:
/// it consumes it (nothing is recorded after), and gives back what the
/// health report and pruning read (`CommittedRun`).
///
/// What a run writes is the run's, never a mode of the store (`Writes`):
/// a run on a shared state writes under its claims, each outcome fenced by
/// the lease its feed was claimed under, and nothing of a feed it did not
/// claim (another process holds it); a run on a read-only session
/// (`feedmerge render`) writes nothing.
public struct StoreRun: ~Copyable {
    private let store: any StateStore
    private let writes: Writes

    /// Which outcomes a run writes.
    enum Writes {
        /// Every feed's.
        case every
        /// The claimed feeds', each under the lease it was claimed under (a shared store's).
        case claimed(any SharedStateStore, leases: [String: HostLease])
        /// None: the state is read only.
        case none
    }

    init(_ store: any StateStore, writes: Writes) {
        self.store = store
        self.writes = writes
    }

    public var keepsEntries: Bool { store.keepsEntries }

    public func feeds() throws(StateError) -> [String: FeedRecord] { try store.feeds() }

    public func feed(_ url: String) throws(StateError) -> FeedRecord? { try store.feed(url) }

    public func storedDates() throws(StateError) -> [String: StoredDates] { try store.storedDates() }

    public func feeds(_ urls: [String]) throws(StateError) -> [String: (record: FeedRecord, dates: StoredDates?)] {
        try store.feeds(urls)
    }

    /// A feed's record and entries continue under a new URL (before any of its outcomes).
    public func rename(feed url: String, to newURL: String) throws(StateError) {
        if case .none = writes { return }
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
        try write(update)
    }

    /// An outcome that stores no entries (not modified, failed, not asked).
    public func record(_ update: FeedUpdate) throws(StateError) {
        if case .fetched = update.outcome {
            preconditionFailure("a fetched feed's outcome is recorded after its history is read")
        }
        try write(update)
    }

    private func write(_ update: FeedUpdate) throws(StateError) {
        switch writes {
        case .every:
            try store.record(update)
        case .claimed(let shared, let leases):
            guard let lease = leases[update.url] else { return }  // another process's feed
            try shared.record(update, fencedBy: lease)
        case .none:
            return
        }
    }

    /// Ends the run: its outcomes stored, then `pending` (the not-modified
    /// feeds', stored together).
    public consuming func commit(pending: [FeedUpdate]) -> CommittedRun {
        let committed = Result { [writes] () throws(StateError) -> [String: StateError] in
            if case .none = writes { return [:] }
            return try store.commit()
        }
        let pendingStored = Result { [writes] () throws(StateError) in
            switch writes {
            case .every: try store.record(all: pending)
            case .claimed(let shared, let leases):
                try shared.record(all: pending.filter { leases[$0.url] != nil }, fencedBy: leases)
            case .none: return
            }
        }
        return CommittedRun(store: store, writes: writes, unstored: committed, pendingStored: pendingStored)
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
    private let writes: StoreRun.Writes
    /// The feeds whose outcomes could not be stored, by URL (a failure: which were is not known).
    public let unstored: Result<[String: StateError], StateError>
    /// Whether the not-modified feeds' outcomes were stored.
    public let pendingStored: Result<Void, StateError>

    init(
        store: any StateStore, writes: StoreRun.Writes, unstored: Result<[String: StateError], StateError>,
        pendingStored: Result<Void, StateError>
    ) {
        self.store = store
        self.writes = writes
        self.unstored = unstored
        self.pendingStored = pendingStored
    }

    /// Feeds whose stored entries were found damaged fetch whole next time.
    public func forgetValidators(of urls: [String]) throws(StateError) {
        switch writes {
        case .every: try store.forgetValidators(of: urls)
        case .claimed(_, let leases): try store.forgetValidators(of: urls.filter { leases[$0] != nil })
        case .none: return
        }
    }

    /// A feed's stored entries, counted, and its newest.
    public func summary(of url: String) throws(StateError) -> (count: Int, newest: Timestamp?) {
        try store.history(of: url).summary
    }

    public func feed(_ url: String) throws(StateError) -> FeedRecord? { try store.feed(url) }

    /// The run's last call: entries the feeds no longer list, past retention, removed (a run
    /// under claims: of the feeds it claimed only, each fenced by its lease).
    public consuming func prune(feeds: [String]?, keepDays: Int, keepPerFeed: Int, now: Timestamp) throws(StateError) {
        switch writes {
        case .every:
            try store.prune(feeds: feeds, keepDays: keepDays, keepPerFeed: keepPerFeed, now: now)
        case .claimed(let shared, let leases):
            let held = (feeds ?? []).filter { leases[$0] != nil }
            guard !held.isEmpty else { return }
            try shared.prune(feeds: held, keepDays: keepDays, keepPerFeed: keepPerFeed, now: now, fencedBy: leases)
        case .none:
            return
        }
    }
}

extension StateSession {
    /// A run's calls to the store, on the session's thread (a read-only session's run writes nothing).
    /// - Parameter leases: a run under claims on a shared state: the lease
    ///   each claimed feed is written under (nil: the run writes every feed).
    public func beginRun(fencedBy leases: [String: HostLease]? = nil) -> StoreRun {
        guard writes else { return StoreRun(store, writes: .none) }
        guard let leases else { return StoreRun(store, writes: .every) }
        guard let shared else { preconditionFailure("a run under claims needs a shared store") }
        return StoreRun(store, writes: .claimed(shared, leases: leases))
    }
}
