import FeedState
import Foundation
import Telemetry

extension Worker {
    /// After a failed try: the loss said once, then the wait before the next try.
    /// - Returns: false when a draining worker has waited long enough: it stops.
    func waitAfter(_ failure: StateError, carried: inout Carried, stopping: @Sendable () -> Bool) async
        -> Bool
    {
        var outage: Outage
        if let known = carried.outage {
            outage = known
        } else {
            outage = Outage()
            stateLost.withLock { $0 = StateLoss(since: outage.started, reason: "\(failure)") }
            let retrying = settings.drain ? "for \(Int(settings.drainPatienceSeconds)) s" : "until it is back"
            log(
                LogEvent(
                    .error, "state_lost", "state lost: cannot claim feeds (\(failure)); trying again \(retrying)",
                    [("reason", .text("\(failure)"))]))
        }
        var wait = outage.nextWait(settings)
        carried.outage = outage
        if settings.drain {
            let left = settings.drainPatienceSeconds - outage.seconds
            guard left > 0 else { return false }
            wait = min(wait, left)
        }
        await Self.pause(wait, stopping: stopping)
        return true
    }

    /// Waits up to `seconds`, waking within a tenth of a second of `stopping`.
    static func pause(_ seconds: Double, stopping: @Sendable () -> Bool) async {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while !stopping(), ContinuousClock.now < deadline {
            do {
                try await Task.sleep(for: .milliseconds(100))
            } catch {
                return  // cancelled: the caller stops
            }
        }
    }
}

/// Since when the state cannot be used, and how often it was tried since.
struct Outage {
    let started = ContinuousClock.now
    private var tries = 0

    var seconds: Double {
        let (seconds, attoseconds) = (ContinuousClock.now - started).components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The wait before the next try: doubling from the first, at most the longest, ±20%.
    mutating func nextWait(_ settings: Worker.Settings) -> Double {
        let doubled = settings.retryFirstSeconds * pow(2, Double(min(tries, 30)))
        tries += 1
        return min(settings.retryLongestSeconds, doubled * Double.random(in: 0.8...1.2))
    }
}
