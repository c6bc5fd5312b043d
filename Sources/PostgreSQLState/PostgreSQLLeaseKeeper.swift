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
final class PostgreSQLLeaseKeeper: LeaseKeeper, @unchecked Sendable {
    private let conninfo: String
    private let leaseSeconds: Int
    private let onChange: @Sendable (LeaseChange) -> Void
    /// Guards everything below; the thread waits on it between renewals.
    private let condition = NSCondition()
    private var leases: [HostLease] = []
    private var lost: [HostLease] = []
    private var stopped = false
    private var thread: Thread?

    init(conninfo: String, leaseSeconds: Int, onChange: @escaping @Sendable (LeaseChange) -> Void) {
        self.conninfo = conninfo
        self.leaseSeconds = leaseSeconds
        self.onChange = onChange
    }

    func keep(_ leases: [HostLease]) {
        condition.lock()
        self.leases = leases
        if thread == nil && !stopped && !leases.isEmpty {
            let thread = Thread { [self] in renewing() }
            thread.name = "feedmerge.lease-keeper"
            self.thread = thread
            thread.start()
        }
        condition.unlock()
    }

    func takeLost() -> [HostLease] {
        condition.lock()
        defer {
            lost = []
            condition.unlock()
        }
        return lost
    }

    /// Leases the store found lost (a write its fence refused): no longer renewed, and said.
    func lost(_ found: [HostLease]) {
        condition.lock()
        let gone = found.filter { leases.contains($0) }
        lost += gone
        leases.removeAll { gone.contains($0) }
        condition.unlock()
        if !gone.isEmpty { onChange(.lost(gone)) }
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    func abandon() throws(StateError) {
        condition.lock()
        stopped = true
        let held = leases
        leases = []
        condition.broadcast()
        condition.unlock()
        guard !held.isEmpty else { return }
        let connection = try PostgreSQLConnection(conninfo)
        try connection.query(
            SharedStatements.abandon, [.texts(held.map(\.host)), .integers(held.map { Optional($0.token) })])
    }

    private func renewing() {
        var connection: PostgreSQLConnection?
        let interval = max(Double(leaseSeconds) / 3, 0.2)
        var failing = false
        condition.lock()
        while !stopped {
            _ = condition.wait(until: Date(timeIntervalSinceNow: interval))
            if stopped { break }
            let held = leases
            if held.isEmpty { continue }
            condition.unlock()
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
                        .texts(held.map(\.host)), .integers(held.map { Optional($0.token) }),
                        .integer(Int64(leaseSeconds)),
                    ]
                ) { row throws(StateError) in kept.insert(try row.text(0, notNull: "hosts.host")) }
            } catch {
                connection = nil
                failure = error
            }
            condition.lock()
            // A lease let go or found lost meanwhile is not news.
            let current = held.filter { leases.contains($0) }
            let gone = failure == nil ? current.filter { !kept.contains($0.host) } : []
            lost += gone
            leases.removeAll { gone.contains($0) }
            condition.unlock()
            if let failure {
                if !failing { onChange(.renewalFailed(failure)) }
                failing = true
            } else {
                failing = false
                let renewed = current.filter { kept.contains($0.host) }
                if !renewed.isEmpty { onChange(.renewed(renewed, since: sent)) }
                if !gone.isEmpty { onChange(.lost(gone)) }
            }
            condition.lock()
        }
        condition.unlock()
    }
}
