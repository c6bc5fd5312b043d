import FeedModel

/// A store read and never written (`feedmerge render`): every read goes to
/// the store it wraps; every write is left undone. Outputs rendered from it
/// depend on the state alone, and leave it as it was.
public final class ReadOnlyStateStore: StateStore {
    private let store: any StateStore

    public init(_ store: any StateStore) { self.store = store }

    /// The store every read goes to (a shared one answers what it lists).
    public var reading: any StateStore { store }

    public var keepsEntries: Bool { store.keepsEntries }
    public func feeds() throws(StateError) -> [String: FeedRecord] { try store.feeds() }
    public func feed(_ url: String) throws(StateError) -> FeedRecord? { try store.feed(url) }
    public func history(of url: String) throws(StateError) -> FeedHistory { try store.history(of: url) }
    public func storedDates() throws(StateError) -> [String: StoredDates] { try store.storedDates() }
    public func record(_ update: FeedUpdate) throws(StateError) {}
    public func commit() throws(StateError) -> [String: StateError] { [:] }
    public func record(all updates: [FeedUpdate]) throws(StateError) {}
    public func forgetValidators(of urls: [String]) throws(StateError) {}
    public func rename(feed url: String, to newURL: String) throws(StateError) {}
    public func prune(feeds: [String]?, keepDays: Int, keepPerFeed: Int, now: Timestamp) throws(StateError) {}
    public func mergedFeedID() throws(StateError) -> UInt64? { try store.mergedFeedID() }
    /// The id kept, else `id`, which is not kept.
    public func keepMergedFeedID(_ id: UInt64) throws(StateError) -> UInt64 { try store.mergedFeedID() ?? id }
    public func finish() { store.finish() }
}
