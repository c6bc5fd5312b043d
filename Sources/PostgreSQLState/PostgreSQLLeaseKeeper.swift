import FeedState
import Foundation

/// Renews a process's host leases every third of the lease time, on a
/// thread and a connection of its own (the run's connection is busy with
/// its outcomes). A renewal that fails (the server unreachable for a while)
/// is tried again at the next tick; a lease that runs out meanwhile may be
/// claimed by another process, and is then found lost here and at release.
final class PostgreSQLLeaseKeeper: LeaseKeeper, @unchecked Sendable {
    private let conninfo: String
    private let leaseSeconds: Int
    /// Guards everything below; the thread waits on it between renewals.
    private let condition = NSCondition()
    private var leases: [HostLease] = []
    private var lost: [HostLease] = []
    private var stopped = false
    private var thread: Thread?

    init(conninfo: String, leaseSeconds: Int) {
        self.conninfo = conninfo
        self.leaseSeconds = leaseSeconds
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

    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    func abandon() {
        condition.lock()
        stopped = true
        let held = leases
        leases = []
        condition.broadcast()
        condition.unlock()
        guard !held.isEmpty, let connection = try? PostgreSQLConnection(conninfo) else { return }
        _ = try? connection.query(
            SharedStatements.abandon, [.texts(held.map(\.host)), .integers(held.map { Optional($0.token) })])
    }

    private func renewing() {
        var connection: PostgreSQLConnection?
        let interval = max(Double(leaseSeconds) / 3, 0.2)
        condition.lock()
        while !stopped {
            _ = condition.wait(until: Date(timeIntervalSinceNow: interval))
            if stopped { break }
            let held = leases
            condition.unlock()
            var kept: Set<String> = []
            var renewed = false
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
                ) { kept.insert($0.text(0) ?? "") }
                renewed = true
            } catch {
                connection = nil
            }
            condition.lock()
            if renewed {
                let gone = held.filter { !kept.contains($0.host) }
                lost += gone
                leases.removeAll { gone.contains($0) }
            }
        }
        condition.unlock()
    }
}
