import FeedModel
import FeedState
import PostgreSQLState
import TestSupport
import Testing

/// The lease fence on its own, in the quick tier: two stores, one PostgreSQL
/// database, no process and no server of hosts.
@Suite struct LeaseFenceTests {
    let server = PostgreSQLServer.shared

    /// The fence itself: an outcome written under a lease another process
    /// has taken since (the first one's ran out) is dropped and counted; the
    /// new holder's stands.
    @Test func anOutcomeWhoseLeaseWasLostIsDroppedAndCounted() throws {
        let state = server.database()
        let url = "http://127.0.0.1:9/feed.xml"
        let now = Timestamp(secondsSince1970: 1_706_745_600)
        let first = try PostgreSQLStateStore(connecting: state)
        let second = try PostgreSQLStateStore(connecting: state)
        _ = try first.subscribe([url], now: now)
        func claim(_ store: PostgreSQLStateStore, _ holder: String) throws -> [HostClaim] {
            try store.claim(ClaimRequest(scope: .due, hosts: 10, holder: holder, leaseSeconds: 60, now: now))
        }
        let firstClaims = try claim(first, "first")
        #expect(firstClaims.map(\.feeds) == [[url]])
        #expect(try claim(second, "second").isEmpty, "held: not claimed twice")
        try PostgreSQLServer.psql(state, "UPDATE hosts SET lease_until = 0")  // the first one's lease ran out
        let secondClaims = try claim(second, "second")
        #expect(secondClaims.map(\.feeds) == [[url]])
        func failure(_ message: String) -> FeedUpdate {
            FeedUpdate(
                url: url, outcome: .failed(message: message, gone: false), status: 500, movedTo: nil, notBefore: nil,
                now: now)
        }
        try second.record(failure("the holder's"))
        #expect(try second.commit().isEmpty)
        try first.record(failure("too late"))
        #expect(try first.commit().isEmpty)
        #expect(first.takeDroppedOutcomes() == [url])
        #expect(second.takeDroppedOutcomes().isEmpty)
        #expect(try second.feed(url)?.lastError == "the holder's")
        let lost = try first.release(firstClaims.map(\.lease), schedule: [])
        #expect(lost == firstClaims.map(\.lease))
        #expect(try second.release(secondClaims.map(\.lease), schedule: []).isEmpty)
    }
}
