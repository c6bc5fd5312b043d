import Foundation

/// A run's thread for its store: every call the run makes to the store
/// runs here, never on the run's task. SQLite's reads, its busy timeout and
/// the store writer's back-pressure then block this thread, never one of
/// Swift's cooperative pool, which has only as many threads as cores and
/// runs the fetching and parsing children meanwhile.
///
/// Jobs run one at a time, in the order given. `run` suspends the caller
/// until its job is done; `enqueue` only while `depth` jobs wait already.
/// A job may use the caller's values that are not `Sendable` (the timeline,
/// the store) as long as the caller leaves them to the jobs until a `run`
/// returns: the caller gives its values over, it does not share them.
final class StateThread: @unchecked Sendable {
    // Unchecked: `jobs`, `stopped` and `waiter` are touched only under `condition`.
    private let condition = NSCondition()
    private var jobs: [() -> Void] = []
    private var stopped = false
    /// The caller of `enqueue` waiting for room.
    private var waiter: CheckedContinuation<Void, Never>?
    /// Jobs run on the caller's thread: the store never blocks (it is in memory).
    private let inline: Bool
    /// Jobs that may wait at once: what they carry (parsed feeds) stays bounded.
    private let depth: Int

    init(inline: Bool = false, depth: Int = 64) {
        self.inline = inline
        self.depth = depth
        if !inline { Thread { [self] in serve() }.start() }
    }

    /// Marks the threads that are a run's state thread.
    private static let marker: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key left")
        return key
    }()

    /// Whether the calling thread is a run's state thread.
    static var isCurrent: Bool { pthread_getspecific(marker) != nil }

    private func serve() {
        _ = pthread_setspecific(Self.marker, UnsafeRawPointer(bitPattern: 1))
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            var room: CheckedContinuation<Void, Never>?
            if jobs.count < depth { swap(&room, &waiter) }
            condition.unlock()
            room?.resume()
            job()
        }
    }

    /// Runs `job` on the thread; suspends the caller (never blocks it) until it is done.
    func run<Result>(_ job: @escaping () -> Result) async -> Result {
        if inline { return job() }
        let work = Unchecked(job)
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Unchecked<Result>, Never>) in
            condition.lock()
            jobs.append { [condition] in
                let result = Unchecked(work.value())
                // The continuation orders the job before the caller goes on, but through atomics
                // in Swift's runtime that ThreadSanitizer cannot see on every path: the caller
                // takes this lock after the job has released it, which it can see.
                condition.withLock {}
                continuation.resume(returning: result)
            }
            condition.signal()
            condition.unlock()
        }
        condition.withLock {}
        return result.value
    }

    /// Queues `job` and returns, or suspends while `depth` jobs wait already.
    func enqueue(_ job: @escaping () -> Void) async {
        if inline { return job() }
        let work = Unchecked(job)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            condition.lock()
            jobs.append(work.value)
            condition.signal()
            if jobs.count <= depth {
                condition.unlock()
                continuation.resume()
            } else {
                waiter = continuation
                condition.unlock()
            }
        }
    }

    /// The thread ends once the jobs given are done.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }
}

/// A value handed between the caller and the state thread, which never use it at the same time.
private struct Unchecked<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// Holds one value until it is taken: a value moved into a job keeps no second reference,
/// so the job can change it in place (a feed's entries, dated where they are).
final class Handover<Value> {
    private var value: Value?
    init(_ value: consuming Value) { self.value = value }
    func take() -> Value {
        guard let taken = value.take() else { preconditionFailure("a handover is taken once") }
        return taken
    }
}
