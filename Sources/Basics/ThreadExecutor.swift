import Foundation

/// An executor with one thread of its own, running its jobs one at a time in
/// the order they came. As a `SerialExecutor` it is an actor's executor (the
/// state session's: the store's blocking calls then block this thread, never
/// one of Swift's cooperative pool, which has only as many threads as cores);
/// as a `TaskExecutor` a task may prefer it (`Task(executorPreference:)`).
///
/// The thread ends when `shutDown` is called and the jobs given before it have run.
public final class ThreadExecutor: SerialExecutor, TaskExecutor {
    private let jobs = Locked<(queue: [UnownedJob], shutDown: Bool)>(([], false))
    private let ready = DispatchSemaphore(value: 0)

    public init(name: String) {
        let thread = Thread { [self] in
            Thread.current.threadDictionary[Self.nameKey] = name
            self.serve()
        }
        thread.name = name
        thread.start()
    }

    private static let nameKey = "feedmerge.ThreadExecutor"

    /// The name of the executor whose thread calls this (nil: no executor's): what a test
    /// asks to learn where a call ran.
    public static var nameOfCurrent: String? { Thread.current.threadDictionary[nameKey] as? String }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.queue.append(job) }
        ready.signal()
    }

    /// Ends the thread once the jobs already given have run.
    public func shutDown() {
        jobs.withLock { $0.shutDown = true }
        ready.signal()
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    private func serve() {
        while true {
            ready.wait()
            let next: UnownedJob? = jobs.withLock { $0.queue.isEmpty ? nil : $0.queue.removeFirst() }
            guard let job = next else {
                // Woken by `shutDown` with nothing queued (a job's signal always finds its job).
                return
            }
            job.runSynchronously(
                isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
        }
    }
}
