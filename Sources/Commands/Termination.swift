import Basics
import Foundation
import Glibc

/// SIGINT and SIGTERM end a run cleanly: each temporary output file is
/// removed (the outputs stay as they were), one line says why, and the
/// process ends with 128 + the signal's number (130, 143), as a shell
/// reports it. The state needs nothing: a run stopped mid-way is what the
/// crash test proves safe (SQLite's journal; PostgreSQL's transaction and
/// advisory lock end with the connection).
///
/// The handler only writes the signal's number into a pipe (all a signal
/// handler may safely do); a thread of its own reads it and does the rest.
/// Whichever thread the signal lands on, it is seen.
///
/// A long-running command (`feedmerge worker`) may ask to stop gracefully
/// instead (`onFirstSignal`): the first signal is handed to it, and only a
/// second one ends the process at once.
enum Termination {
    private static let cleanups = Locked<[@Sendable () -> Void]>([])
    private static let graceful = Locked<(@Sendable (Int32) -> Void)?>(nil)
    private static let lastWords = Locked<(@Sendable (Int32) -> Void)?>(nil)

    /// Runs `cleanup` if a signal ends the process.
    static func onSignal(_ cleanup: @escaping @Sendable () -> Void) {
        cleanups.withLock { $0.append(cleanup) }
    }

    /// Hands the first SIGINT or SIGTERM to `body` (which stops the work
    /// soon); a second one ends the process as usual.
    static func onFirstSignal(_ body: @escaping @Sendable (Int32) -> Void) {
        graceful.withLock { $0 = body }
    }

    /// Says why the process ends, in the command's own words, in place of a
    /// run's "outputs left as they were" (`feedmerge worker`).
    static func farewell(_ body: @escaping @Sendable (Int32) -> Void) {
        lastWords.withLock { $0 = body }
    }

    /// Handles SIGINT and SIGTERM from now on.
    static func install() { _ = installed }

    /// The pipe from the handler to the thread: made before the handler can run.
    private static let pipeEnds: (read: Int32, write: Int32) = {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return (-1, -1) }
        return (ends[0], ends[1])
    }()

    private static let installed: Bool = {
        let ends = pipeEnds
        guard ends.read >= 0 else { return false }
        writeEnd = ends.write
        Thread {
            var number: UInt8 = 0
            while true {
                while read(ends.read, &number, 1) != 1 {}
                // The graceful stop is taken once: a second signal ends the process.
                let stop = graceful.withLock { body in
                    let taken = body
                    body = nil
                    return taken
                }
                guard let stop else { break }
                stop(Int32(number))
            }
            for cleanup in cleanups.withLock({ $0 }) { cleanup() }
            if let farewell = lastWords.withLock({ $0 }) {
                farewell(Int32(number))
            } else {
                let name = number == UInt8(SIGINT) ? "SIGINT" : "SIGTERM"
                StandardOutput.error("feedmerge: stopped by \(name); outputs left as they were")
            }
            _exit(128 + Int32(number))
        }.start()
        for number in [SIGINT, SIGTERM] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(Termination.writeEnd, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
        return true
    }()

    /// The pipe's write end, for the handler (a plain global read: set before any handler is installed).
    nonisolated(unsafe) static var writeEnd: Int32 = -1
}
