import Aggregator
import Basics

/// `[done/total] failures` on one terminal line, when stderr is a terminal.
final class Progress: Sendable {
    private struct Counts {
        var failures = 0
        var bytes = 0
    }

    let enabled: Bool
    private let counts = Locked(Counts())

    init(enabled: Bool) { self.enabled = enabled }

    func update(_ report: FeedReport, done: Int, total: Int) {
        guard enabled else { return }
        let line = counts.withLock { counts in
            if report.failed { counts.failures += 1 }
            counts.bytes += report.bytes
            return "\r\u{1B}[K[\(done)/\(total)] \(counts.failures) failed, \(counts.bytes / 1024) KB"
        }
        StandardOutput.errorRaw(line)
    }

    func finish() {
        if enabled { StandardOutput.errorRaw("\r\u{1B}[K") }
    }
}
