import Basics
import FeedModel

/// A store and the thread every call to it runs on: the store is isolated to
/// this actor, whose executor is a thread of its own (`ThreadExecutor`), so
/// SQLite's reads and busy timeout, the store writer's back-pressure and
/// PostgreSQL's round trips block that thread, never one of Swift's
/// cooperative pool (which has only as many threads as cores and runs the
/// fetching and parsing meanwhile). The compiler holds every caller to it:
/// the store is reached only from code isolated to the session, through a
/// run begun on it (`beginRun`: a function with an `isolated StateSession`
/// parameter, such as a run's settling), through `read`, whose body gets the
/// store's reading side and gives back only `Sendable` values, through
/// `withSharedStore` (claims and releases), or through the session's own
/// few writes (`keepMergedFeedID`).
///
/// A session reads and writes, or only reads (`Access.readOnly`: `feedmerge
/// render`), for its whole life: its runs then write nothing, and it makes
/// no claim. A session owns its store from `init` until it is released: the
/// thread ends when the session does.
public actor StateSession {
    /// The store, reachable only on the session's thread: a run's calls go through `beginRun`.
    let store: any StateStore
    /// The same store, when several processes share it (one cast, here).
    let shared: (any SharedStateStore)?
    /// Whether the store is shared by several processes (`SharedStateStore`).
    public nonisolated let isShared: Bool
    /// Whether the store keeps entries (a `--no-state` run's does not).
    public nonisolated let keepsEntries: Bool
    /// Whether the session writes (`Access`).
    public nonisolated let writes: Bool
    private nonisolated let executor: ThreadExecutor

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// What a session may do with its store.
    public enum Access: Sendable {
        case readWrite
        /// Every write left undone: outputs rendered from the state depend on it alone, and leave it as it was.
        case readOnly
    }

    /// Takes `store` over: no other code holds it afterwards.
    public init(_ store: sending any StateStore, access: Access = .readWrite) {
        self.init(store, access: access, executor: ThreadExecutor(name: "feedmerge state"))
    }

    private init(_ store: sending any StateStore, access: Access, executor: ThreadExecutor) {
        keepsEntries = store.keepsEntries
        self.executor = executor
        shared = store as? any SharedStateStore
        isShared = shared != nil
        writes = access == .readWrite
        self.store = store
    }

    deinit { executor.shutDown() }

    /// Opens a store on the thread of the session that then holds it: opening (a file's
    /// migrations, a server's connection) waits there, never on Swift's cooperative pool.
    public static func open(
        access: Access = .readWrite, _ make: @escaping @Sendable () throws(StateError) -> sending any StateStore
    ) async throws(StateError) -> StateSession {
        let executor = ThreadExecutor(name: "feedmerge state")
        let opened = await withCheckedContinuation { continuation in
            Task(executorPreference: executor) {
                continuation.resume(returning: Result { () throws(StateError) in try make() })
            }
        }
        switch opened {
        case .success(let store):
            return StateSession(store, access: access, executor: executor)
        case .failure(let error):
            executor.shutDown()
            throw error
        }
    }

    /// Runs `body` with the store's reading side on the session's thread.
    public func read<Value: Sendable, Failure: Error>(
        _ body: @Sendable (any StateReading) throws(Failure) -> Value
    ) throws(Failure) -> Value {
        try body(store)
    }

    /// Runs `body` with the whole store on the session's thread (the tests' way in).
    func withStore<Value: Sendable, Failure: Error>(
        _ body: @Sendable (any StateStore) throws(Failure) -> Value
    ) throws(Failure) -> Value {
        try body(store)
    }

    /// Runs `body` with the shared store on the session's thread: claims and
    /// releases (`isShared` and `writes` must hold).
    public func withSharedStore<Value: Sendable, Failure: Error>(
        _ body: @Sendable (any SharedStateStore) throws(Failure) -> Value
    ) throws(Failure) -> Value {
        guard let shared, writes else {
            preconditionFailure("a session's shared-store calls need a shared store it may write")
        }
        return try body(shared)
    }

    /// The feeds some run or worker listed lately (`SharedStateStore.listedFeeds`), a page at a
    /// time; nil when the store is not shared.
    public func listedFeeds(now: Timestamp, after: String? = nil, limit: Int? = nil) throws(StateError) -> [String]? {
        try shared?.listedFeeds(now: now, after: after, limit: limit)
    }

    /// `StateStore.keepMergedFeedID`; a read-only session keeps nothing: the id kept, else `id`.
    public func keepMergedFeedID(_ id: UInt64) throws(StateError) -> UInt64 {
        writes ? try store.keepMergedFeedID(id) : try store.mergedFeedID() ?? id
    }

    /// `StateStore.finish`: the run is done with the store.
    public func finish() { store.finish() }
}
