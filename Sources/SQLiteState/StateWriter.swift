import Dispatch
import FeedModel
import FeedState
import Synchronization

/// Where a SQLite store's outcomes are stored: a connection of its own, on
/// a thread of its own. Merging a fetched feed's document, writing it and
/// checkpointing the journal then go on beside the run's parsing and its
/// reads of the store, instead of holding them up.
///
/// Each outcome is a savepoint in a batch of `batchLimit` (one transaction):
/// a feed's entries and validators commit together, as if each feed had a
/// transaction of its own, at a fraction of the cost; an outcome that fails
/// is undone alone and kept for `commit` to report.
///
/// `@unchecked Sendable`, for a C handle that cannot be otherwise: the
/// writer's SQLite connection (`sqlite3*`, opened `NOMUTEX`, so never used by
/// two threads at once) is used on `queue` only, as are `batch` and
/// `failures`, which describe its open transaction; the store's synchronous
/// calls (`submit`, `flush`, `commit`) hand work to that queue and wait for
/// room or for it, so they are made from the store's session thread only
/// (`StateSession`), never from Swift's cooperative pool.
final class StateWriter: @unchecked Sendable {
    private let queue = DispatchQueue(label: "feedmerge.state-writer")
    /// Outcomes handed over and not yet stored, at most `depth`: the run waits
    /// beyond that (a writer that falls behind must not hold every feed's entries).
    private let room = DispatchSemaphore(value: StateWriter.depth)
    private let database: SQLiteDatabase
    /// The feeds whose outcomes are in the open batch (empty: no batch open):
    /// an error that ends the whole transaction undoes them all, and each is reported.
    private var batch: [String] = []
    private var batchSize: Int { batch.count }
    /// Outcomes that could not be stored, by feed URL, until `commit` takes them.
    private var failures: [String: StateError] = [:]

    static let depth = 16
    /// Outcomes per batch: a killed run loses at most these (their feeds are
    /// fetched whole again next time, having no validators stored).
    static let batchLimit = 64

    /// Copies the journal into the database beside this thread (which waits for it only every
    /// `batchesPerJournal` batches).
    private let checkpointer: Checkpointer
    /// Batches committed since this thread last waited for the checkpointer.
    private var batchesSinceWait = 0
    /// Every this many batches, the next one waits until the journal is copied, so that
    /// it starts the journal over (SQLite restarts it only for a writer that finds every
    /// page copied): the journal stays about this many batches long. A run that never
    /// waited would grow it to half the state, and deleting it at the end would cost
    /// tenths of a second.
    static let batchesPerJournal = 16

    init(path: String) throws(StateError) {
        database = try SQLiteDatabase(path: path)
        // Never here: each commit asks the checkpointer instead.
        try database.execute("PRAGMA wal_autocheckpoint=0")
        checkpointer = try Checkpointer(path: path)
    }

    deinit {
        queue.sync { _ = Result(catching: { () throws(StateError) in try commitBatch() }) }
        checkpointer.wait()
    }

    /// Stores the outcome on the writer's thread.
    func submit(_ update: FeedUpdate) {
        room.wait()
        queue.async {
            defer { self.room.signal() }
            if case .failure(let error) = Result(catching: { () throws(StateError) in try self.store(update) }) {
                self.failures[update.url] = error
            }
        }
    }

    /// Waits for every outcome handed over and commits them.
    func flush() throws(StateError) {
        try queue.sync { Result(catching: { () throws(StateError) in try commitBatch() }) }.get()
    }

    /// Copies the journal (WAL) into the database once what was handed over
    /// is committed: what closing would do, done early, beside the run.
    func checkpoint() {
        queue.async { self.checkpointer.request() }
    }

    /// `flush`, then the outcomes that could not be stored since the last
    /// `commit`, by feed URL.
    /// A batch that cannot be committed is reported on each of its feeds.
    func commit() throws(StateError) -> [String: StateError] {
        queue.sync {
            _ = Result(catching: { () throws(StateError) in try commitBatch() })  // its feeds are in `failures`
            defer { failures = [:] }
            return failures
        }
    }

    private func store(_ update: FeedUpdate) throws(StateError) {
        if batch.isEmpty {
            if batchesSinceWait >= Self.batchesPerJournal {
                checkpointer.wait()
                batchesSinceWait = 0
            }
            try database.execute("BEGIN IMMEDIATE")
        }
        batch.append(update.url)
        do {
            try database.execute("SAVEPOINT outcome")
            try database.apply(update)
            try database.execute("RELEASE outcome")
        } catch {
            if database.inTransaction {  // undone alone
                batch.removeLast()
                try? database.execute("ROLLBACK TO outcome")
                try? database.execute("RELEASE outcome")
            } else {  // some errors end the whole transaction: the batch's other outcomes are undone too
                batch.removeLast()
                undone(by: error)
            }
            throw error
        }
        if batchSize >= Self.batchLimit { try commitBatch() }
    }

    private func commitBatch() throws(StateError) {
        guard batchSize > 0 else { return }
        do {
            try database.execute("COMMIT")
            batch = []
            batchesSinceWait += 1
            checkpointer.request()
        } catch {
            if database.inTransaction { try? database.execute("ROLLBACK") }
            undone(by: error)
            throw error
        }
    }

    /// The open batch is gone: each of its feeds is reported.
    private func undone(by error: StateError) {
        for url in batch where failures[url] == nil { failures[url] = error }
        batch = []
    }
}

/// Copies a store's journal (WAL) into its database on a connection and a
/// thread of its own: a passive checkpoint after each committed batch, as
/// far as no reader holds it back. SQLite's own checkpoints would run on the
/// writer's thread when the journal passes 1,000 pages, each waiting for the
/// disk twice (the journal's sync, then the database's) while the run's
/// outcomes queue behind it. A checkpoint that fails leaves the pages in the
/// journal, where every reader finds them, for the next one (or closing).
///
/// `@unchecked Sendable`, for a C handle that cannot be otherwise: the
/// checkpointer's SQLite connection is used on `queue` only.
final class Checkpointer: @unchecked Sendable {
    private let queue = DispatchQueue(label: "feedmerge.state-checkpoint")
    private let database: SQLiteDatabase
    /// A checkpoint is asked for and has not started: more requests join it.
    private let requested = Atomic<Bool>(false)

    init(path: String) throws(StateError) {
        database = try SQLiteDatabase(path: path)
        try database.execute("PRAGMA wal_autocheckpoint=0")
    }

    /// A checkpoint soon (one, however many commits ask before it starts).
    func request() {
        guard !requested.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.async {
            self.requested.store(false, ordering: .releasing)
            _ = try? self.database.execute("PRAGMA wal_checkpoint(PASSIVE)")
        }
    }

    /// Until the checkpoints asked for are done.
    func wait() { queue.sync {} }
}
