import Basics
import Foundation

/// A process a test starts and awaits without holding a thread of Swift's cooperative pool.
///
/// On a 2-core machine the pool has two threads: a test blocked in `waitUntilExit` holds one for as
/// long as its child runs, and two such tests stall every other suite. Its termination handler is
/// installed in `run()`, before the child exists, so its end cannot be missed (a handler installed
/// after the child has ended never fires).
///
/// A child still running `limit` after it started is killed (SIGKILL), saying so on standard error:
/// a test awaiting a child that hangs then fails on its status instead of holding the suite until
/// the CI's own time limit.
public final class ChildProcess: Process, @unchecked Sendable {
    // Unchecked: the state below is used under its lock only; the rest is Process's own.
    private enum End {
        case running([CheckedContinuation<Void, Never>])
        case ended(Date)
    }

    private let end = Locked<End>(.running([]))

    /// How long the child may run; nil for no limit.
    public var limit: Duration? = .seconds(600)

    override public func run() throws {
        terminationHandler = { [end] _ in
            let waiting = end.withLock { state -> [CheckedContinuation<Void, Never>] in
                guard case .running(let waiting) = state else { return [] }
                state = .ended(Date())
                return waiting
            }
            for continuation in waiting { continuation.resume() }
        }
        try super.run()
        if let limit { killAfter(limit) }
    }

    private func killAfter(_ limit: Duration) {
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
            guard endTime == nil else { return }
            let command = ([executableURL?.path ?? "?"] + (arguments ?? [])).joined(separator: " ")
            FileHandle.standardError.write(
                Data("test support: killed \(processIdentifier) after \(limit), still running: \(command)\n".utf8))
            kill(processIdentifier, SIGKILL)
        }
    }

    /// Waits for the child to end; gives its `terminationStatus`.
    @discardableResult
    public func exited() async -> Int32 {
        await withCheckedContinuation { continuation in
            let ended = end.withLock { state -> Bool in
                guard case .running(let waiting) = state else { return true }
                state = .running(waiting + [continuation])
                return false
            }
            if ended { continuation.resume() }
        }
        return terminationStatus
    }

    /// When the child's end was seen (by the termination handler, not by a task that may wait for a
    /// busy pool before it runs again); nil while it runs.
    public var endTime: Date? {
        end.withLock { state in
            guard case .ended(let time) = state else { return nil }
            return time
        }
    }
}
