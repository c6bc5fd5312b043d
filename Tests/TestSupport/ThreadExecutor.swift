import Basics
import Foundation

/// A task executor with one thread of its own. A task that prefers it
/// (`Task(executorPreference:)`), and every child task it makes, runs there however
/// long the other suites keep Swift's cooperative pool busy: on a 2-core machine the
/// pool has two threads, and tests that wait for a process block them.
public final class ThreadExecutor: TaskExecutor {
    /// One for the whole test process: its thread lives as long as the process.
    public static let shared = ThreadExecutor(name: "test executor")

    private let jobs = Locked<[UnownedJob]>([])
    private let ready = DispatchSemaphore(value: 0)

    public init(name: String) {
        let thread = Thread { [self] in self.run() }
        thread.name = name
        thread.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        ready.signal()
    }

    /// Runs the jobs in the order they came, for ever.
    private func run() {
        while true {
            ready.wait()
            let job = jobs.withLock { $0.removeFirst() }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
