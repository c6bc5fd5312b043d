import Basics
import FeedState
import Foundation

/// Renews a process's host leases every third of the lease time, on a
/// thread and a connection of its own (the run's connection is busy with
/// its outcomes). What it learns goes to `onChange` at once: each renewal
/// with when it was sent (each lease holds for the lease's length from
/// then), a lease found lost (by a renewal, or by a write of the store's
/// that its fence refused: `lost(_:)`), the first of a run of failed
/// renewals. A renewal that fails (the server unreachable for a while) is
/// tried again at the next tick, on a new connection; a lease that runs
/// out meanwhile may be claimed by another process, and is then found lost
/// here and at release.
final class PostgreSQLLeaseKeeper: LeaseKeeper, Sendable {
    private let conninfo: String
    private let leaseSeconds: Int
    private let onChange: @Sendable (LeaseChange) -> Void
    private let held = Locked(Held())
    /// Wakes the renewing thread before its next tick (to stop).
    private let wake = DispatchSemaphore(value: 0)

    private struct Held {
        var leases: [HostLease] = []
        var lost: [HostLease] = []
        var stopped = false
        var renewing = false
    }

    init(conninfo: String, leaseSeconds: Int, onChange: @escaping @Sendable (LeaseChange) -> Void) {
        self.conninfo = conninfo
        self.leaseSeconds = leaseSeconds
        self.onChange = onChange
    }

    func keep(_ leases: [HostLease]) {
        let starts = held.withLock { held in
            held.leases = leases
            guard !held.renewing && !held.stopped && !leases.isEmpty else { return false }
            held.renewing = true
            return true
        }
        guard starts else { return }
        let thread = Thread { [self] in renewing() }
        thread.name = "feedmerge.lease-keeper"
        thread.start()
    }

    func takeLost() -> [HostLease] {
        held.withLock { held in
            defer { held.lost = [] }
            return held.lost
        }
    }

    /// Leases the store found lost (a write its fence refused): no longer renewed, and said.
    func lost(_ found: [HostLease]) {
        let gone = held.withLock { held in
            let gone = found.filter { held.leases.contains($0) }
            held.lost += gone
            held.leases.removeAll { gone.contains($0) }
            return gone
        }
        if !gone.isEmpty { onChange(.lost(gone)) }
    }

    func stop() {
        held.withLock { $0.stopped = true }
        wake.signal()
    }

    func abandon() throws(StateError) {
        let abandoned = held.withLock { held in
            held.stopped = true
            defer { held.leases = [] }
            return held.leases
        }
        wake.signal()
        guard !abandoned.isEmpty else { return }
        let connection = try PostgreSQLConnection(conninfo)
        try connection.query(
            SharedStatements.abandon,
            [.texts(abandoned.map(\.host)), .integers(abandoned.map { Optional($0.token) })])
    }

    private func renewing() {
        var connection: PostgreSQLConnection?
        let interval = max(Double(leaseSeconds) / 3, 0.2)
        var failing = false
        while true {
            _ = wake.wait(timeout: .now() + interval)
            let (stopped, leases) = held.withLock { ($0.stopped, $0.leases) }
            if stopped { break }
            if leases.isEmpty { continue }
            var kept: Set<String> = []
            var failure: StateError?
            let sent = ContinuousClock.now
            do throws(StateError) {
                if connection == nil || connection?.isOpen == false {
                    connection = try PostgreSQLConnection(conninfo)
                    try connection?.execute("SET application_name TO 'feedmerge lease keeper'")
                }
                try connection?.query(
                    SharedStatements.renew,
                    [
                        .texts(leases.map(\.host)), .integers(leases.map { Optional($0.token) }),
                        .integer(Int64(leaseSeconds)),
                    ]
                ) { row throws(StateError) in kept.insert(try row.text(0, notNull: "hosts.host")) }
            } catch {
                connection = nil
                failure = error
            }
            // A lease let go or found lost meanwhile is not news.
            let (current, gone) = held.withLock { held in
                let current = leases.filter { held.leases.contains($0) }
                let gone = failure == nil ? current.filter { !kept.contains($0.host) } : []
                held.lost += gone
                held.leases.removeAll { gone.contains($0) }
                return (current, gone)
            }
            if let failure {
                if !failing { onChange(.renewalFailed(failure)) }
                failing = true
            } else {
                failing = false
                let renewed = current.filter { kept.contains($0.host) }
                if !renewed.isEmpty { onChange(.renewed(renewed, since: sent)) }
                if !gone.isEmpty { onChange(.lost(gone)) }
            }
        }
    }
}
