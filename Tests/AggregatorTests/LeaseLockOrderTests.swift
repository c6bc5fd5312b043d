import FeedModel
import Foundation
import TestSupport
import Testing

@testable import FeedState
@testable import PostgreSQLState

/// A worker's two connections to a shared state, its store's and its lease
/// keeper's, lock the hosts' lease rows in one order, the hosts': a batch of
/// fenced outcomes share-locks its hosts first (`Statements.lockLeaseHosts`),
/// and a renewal locks the rows it renews in that order. Otherwise a renewal
/// that took one host's row and waits for another's, while a batch holds that
/// one and waits for the first, is a deadlock, which PostgreSQL ends by
/// failing one of them: a renewal said failed, or a batch of outcomes not stored.
@Suite struct LeaseLockOrderTests {
    @Test func aRenewalAndABatchOfFencedOutcomesNeverDeadlock() async throws {
        let (a1, b1) = ("http://a.example/1.xml", "http://b.example/1.xml")
        let database = await PostgreSQLServer.shared.database()
        let name = database.split(separator: "=").last.map(String.init) ?? ""
        let session = StateSession(try PostgreSQLStateStore(connecting: database))
        let now = Timestamp(secondsSince1970: 1_706_745_600)
        let claims = try await session.withSharedStore { store throws(StateError) in
            try store.subscribe([a1, b1], now: now)
            return try store.claim(
                ClaimRequest(scope: .feeds([a1, b1]), hosts: 10, holder: "w", leaseSeconds: 60, now: now))
        }
        let leases = claims.map(\.lease).sorted { $0.host < $1.host }
        #expect(leases.map(\.host) == ["a.example", "b.example"])

        // Another transaction holds a.example's row, so that the two queue behind it in a known order.
        let holder = try PostgreSQLConnection(database)
        try holder.execute("BEGIN")
        try holder.execute("SELECT 1 FROM hosts WHERE host = 'a.example' FOR NO KEY UPDATE")
        func waiting() async throws -> Int {
            Int(
                try await PostgreSQLServer.psql(
                    database,
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(name)' AND wait_event_type = 'Lock'"))
                ?? -1
        }
        func untilWaiting(_ count: Int) async throws {
            for _ in 0..<300 {
                if try await waiting() >= count { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await waiting() == count, "\(count) waiting for a lock")
        }
        // The renewal first: it waits for a.example's row.
        let renewal = Task {
            try await OwnThread.run("renewal") { () throws -> [String] in
                let keeper = try PostgreSQLConnection(database)
                var renewed: [String] = []
                try keeper.query(
                    SharedStatements.renew,
                    [
                        .texts(leases.map(\.host)), .integers(leases.map { Optional($0.token) }), .integer(60),
                    ]
                ) { row throws(StateError) in renewed.append(try row.text(0, notNull: "hosts.host")) }
                return renewed
            }
        }
        try await untilWaiting(1)
        // Then a batch whose outcomes come b.example first: it must not take b.example's row
        // before a.example's, which the renewal will hold.
        let failed = { (url: String) in
            FeedUpdate(
                url: url, outcome: .failed(message: "refused", gone: false), status: 500, movedTo: nil,
                notBefore: nil, now: now)
        }
        let batch = Task {
            try await StateSessionTests.record(
                [failed(b1), failed(a1)], fencedBy: HostClaim.leasesByFeed(claims), on: session)
        }
        try await untilWaiting(2)
        try holder.execute("COMMIT")

        #expect(try await renewal.value.sorted() == ["a.example", "b.example"], "both renewed")
        try await batch.value
        let stored = try await session.withStore { store throws(StateError) in
            [try store.feed(a1)?.lastError, try store.feed(b1)?.lastError]
        }
        #expect(stored == ["refused", "refused"], "both outcomes stored")
    }
}
