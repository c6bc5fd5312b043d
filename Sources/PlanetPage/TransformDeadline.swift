internal import CLibXSLT
import Foundation

/// A transformation's time limit. A theme is the operator's, but themes are
/// downloaded, and one whose work doubles at each level would hold a cron
/// run (and the state's lock) for ever: when the time is up, a thread of
/// its own stops the transformation (`CLibXSLT_stopTransform`), which then
/// fails at its next step and the page is not written.
final class TransformDeadline: @unchecked Sendable {
    // Unchecked: `finished` and `expired` are read and written only under `condition`.
    private let condition = NSCondition()
    private var finished = false
    private var expired = false

    /// Starts the clock for the transformation `context` (an
    /// `xsltTransformContextPtr`), which must stay alive until `finish`.
    init(seconds: Double, context: UnsafeMutableRawPointer) {
        let address = UInt(bitPattern: context)
        let deadline = Date(timeIntervalSinceNow: seconds)
        let thread = Thread { [self] in
            condition.lock()
            defer { condition.unlock() }
            while !finished {
                if !condition.wait(until: deadline) { break }
            }
            guard !finished else { return }
            expired = true
            CLibXSLT_stopTransform(UnsafeMutableRawPointer(bitPattern: address))
        }
        thread.name = "feedmerge theme deadline"
        thread.start()
    }

    /// Ends the clock; whether the time ran out (the transformation was stopped).
    func finish() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        finished = true
        condition.signal()
        return expired
    }

    /// `60 s`, `0.5 s`.
    static func text(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }
}
