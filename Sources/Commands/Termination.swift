import Basics
import Dispatch
import Glibc

/// SIGINT and SIGTERM end a run cleanly: each temporary output file is
/// removed (the outputs stay as they were), one line says why, and the
/// process ends with 128 + the signal's number (130, 143), as a shell
/// reports it. The state needs nothing: a run stopped mid-way is what the
/// crash test proves safe (SQLite's journal; PostgreSQL's transaction and
/// advisory lock end with the connection), and the next run removes
/// nothing of it.
enum Termination {
    private static let cleanups = Locked<[@Sendable () -> Void]>([])

    /// Runs `cleanup` if a signal ends the process.
    static func onSignal(_ cleanup: @escaping @Sendable () -> Void) {
        cleanups.withLock { $0.append(cleanup) }
    }

    /// Handles SIGINT and SIGTERM from now on (on a dispatch queue: no work in signal context).
    static func install() { _ = sources }

    // Unsafe: made once by the static's (thread-safe) initializer and never changed; the
    // sources are kept only so that they live as long as the process.
    nonisolated(unsafe) private static let sources: [any DispatchSourceSignal] = [
        (SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"),
    ].map {
        number, name in
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler {
            for cleanup in cleanups.withLock({ $0 }) { cleanup() }
            StandardOutput.error("feedmerge: stopped by \(name); outputs left as they were")
            _exit(128 + number)
        }
        source.resume()
        return source
    }
}
