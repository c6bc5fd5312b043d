import Basics

/// A store and the thread every call to it runs on: the store is isolated to
/// this actor, whose executor is a thread of its own (`ThreadExecutor`), so
/// SQLite's reads and busy timeout, the store writer's back-pressure and
/// PostgreSQL's round trips block that thread, never one of Swift's
/// cooperative pool (which has only as many threads as cores and runs the
/// fetching and parsing meanwhile). The compiler holds every caller to it:
/// the store is reached only from code isolated to the session, through
/// a run begun on it (`beginRun`: a function with an `isolated
/// StateSession` parameter, such as a run's settling), or through
/// `withStore`, whose body gets the store and gives back only `Sendable`
/// values.
///
/// A session owns its store from `init` until it is released: the thread
/// ends when the session does.
public actor StateSession {
    /// The store, reachable only on the session's thread: a run's calls go through `beginRun`.
    let store: any StateStore
    /// The same store, when several processes share it (one cast, here).
    let shared: (any SharedStateStore)?
    /// Whether the store is shared by several processes (`SharedStateStore`).
    public nonisolated let isShared: Bool
    /// Whether the store keeps entries (a `--no-state` run's does not).
    public nonisolated let keepsEntries: Bool
    private nonisolated let executor: ThreadExecutor

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Takes `store` over: no other code holds it afterwards.
    public init(_ store: sending any StateStore) {
        self.init(store, executor: ThreadExecutor(name: "feedmerge state"))
    }

    private init(_ store: sending any StateStore, executor: ThreadExecutor) {
        keepsEntries = store.keepsEntries
        self.executor = executor
        shared = store as? any SharedStateStore
        isShared = shared != nil
        self.store = store
    }

    deinit { executor.shutDown() }

    /// Opens a store on the thread of the session that then holds it: opening (a file's
    /// migrations, a server's connection) waits there, never on Swift's cooperative pool.
    public static func open(
        _ make: @escaping @Sendable () throws(StateError) -> sending any StateStore
    ) async throws(StateError) -> StateSession {
        let executor = ThreadExecutor(name: "feedmerge state")
        let opened = await withCheckedContinuation { continuation in
            Task(executorPreference: executor) {
                continuation.resume(returning: Result { () throws(StateError) in try make() })
            }
        }
        switch opened {
        case .success(let store):
            return StateSession(store, executor: executor)
        case .failure(let error):
            executor.shutDown()
            throw error
        }
    }

    /// Runs `body` with the store on the session's thread.
    public func withStore<Value: Sendable, Failure: Error>(
        _ body: @Sendable (any StateStore) throws(Failure) -> Value
    ) throws(Failure) -> Value {
        try body(store)
    }

    /// Runs `body` with the shared store on the session's thread (`isShared` must hold).
    public func withSharedStore<Value: Sendable, Failure: Error>(
        _ body: @Sendable (any SharedStateStore) throws(Failure) -> Value
    ) throws(Failure) -> Value {
        guard let shared else {
            preconditionFailure("a session's shared-store calls need a shared store")
        }
        return try body(shared)
    }
}
