import FeedModel
import FeedState
import Foundation
import Testing

/// A state several processes share (`SharedStateStore`): the list, claims,
/// the schedule written at release. Each scenario opens a new state and a
/// store per process on it.
extension StoreConformance {
    static let a1 = "http://a.example/1.xml"
    static let a2 = "http://a.example/2.xml"
    static let b1 = "http://b.example/1.xml"

    static func due(_ holder: String, hosts: Int = 10, lease: Int = 60, at now: Timestamp = Sample.time(0))
        -> ClaimRequest
    {
        ClaimRequest(scope: .due, hosts: hosts, holder: holder, leaseSeconds: lease, now: now)
    }

    static let claiming: [Scenario<SharedStoreFactory>] = [
        Scenario("subscribed feeds are listed and due at once, while some run listed them within two days") {
            factory in
            let store = try await factory.makeState().process()
            #expect(try store.subscribe([b1, a2, a1], now: Sample.time(0)).isEmpty, "\(factory.name)")
            #expect(try store.listedFeeds(now: Sample.time(0)) == [a1, a2, b1], "in byte order")
            // A page at a time, each after the last one read.
            #expect(try store.listedFeeds(now: Sample.time(0), after: nil, limit: 2) == [a1, a2])
            #expect(try store.listedFeeds(now: Sample.time(0), after: a2, limit: 2) == [b1])
            #expect(try store.listedFeeds(now: Sample.time(0), after: b1, limit: 2).isEmpty)
            #expect(try store.listedFeeds(now: Sample.time(0), after: "http://a.example/1.xmm", limit: 9) == [a2, b1])
            #expect(try store.dueCount(now: Sample.time(0), atMost: nil) == 3)
            #expect(try store.dueCount(now: Sample.time(0), atMost: 2) == 2, "counted no further")
            let known = try store.feeds([a1, b1, "http://c.example/none.xml"])
            #expect(Set(known.keys) == [a1, b1])
            #expect(known[a1]?.record.lastFetch == nil && known[a1]?.dates == nil)
            #expect(try store.listedFeeds(now: Sample.time(2, 1)).isEmpty, "listed more than two days ago")
            #expect(try store.dueCount(now: Sample.time(2, 1), atMost: nil) == 0)
            try store.subscribe([a1], now: Sample.time(2))
            #expect(try store.listedFeeds(now: Sample.time(2, 1)) == [a1], "listed again")
        },
        Scenario("a claim gives free hosts with their due feeds; a held host is nobody else's") { factory in
            let state = try await factory.makeState()
            let first = try state.process()
            let second = try state.process()
            try first.subscribe([a1, a2, b1], now: Sample.time(0))
            let claims = try first.claim(due("first", hosts: 1))
            #expect(claims.count == 1, "\(factory.name): at most the hosts asked for")
            let feeds = try #require(claims.first).feeds
            #expect(feeds == [a1, a2] || feeds == [b1], "a host with its due feeds: \(feeds)")
            let others = try second.claim(due("second"))
            #expect(others.count == 1 && others.first?.lease.host != claims.first?.lease.host)
            #expect(Set(others.flatMap(\.feeds)).union(feeds) == [a1, a2, b1], "every due feed, once")
            #expect(try first.claim(due("first")).isEmpty, "every host is held")
            #expect(try first.dueCount(now: Sample.time(0), atMost: nil) == 3, "due, whoever holds their hosts")
            #expect(try second.feed(feeds[0])?.leaseHolder == "first", "who holds the host")
            // A one-shot run asks for its own feeds' hosts: none of them free.
            #expect(
                try second.claim(
                    ClaimRequest(scope: .feeds(feeds), hosts: 10, holder: "run", leaseSeconds: 60, now: Sample.time(0))
                ).isEmpty)
            #expect(try second.release(others.map(\.lease), schedule: [], fetchedBy: "second").isEmpty)
            #expect(try first.release(claims.map(\.lease), schedule: [], fetchedBy: "first").isEmpty)
            #expect(try second.feed(feeds[0])?.leaseHolder == nil)
        },
        Scenario("a claim bounded in feeds a host takes the longest due first; the rest come with its next claim") {
            factory in
            let state = try await factory.makeState()
            let store = try state.process()
            let a3 = "http://a.example/3.xml"
            try store.subscribe([a1, a2, a3], now: Sample.time(0))
            // a1 checked last: due latest.
            let first = try store.claim(due("first"))
            let lease = try #require(first.first).lease
            let schedule = [ScheduledFeed(url: a1, nextCheck: Sample.time(0, 60), lease: lease)]
            #expect(try store.release([lease], schedule: schedule, fetchedBy: "first").isEmpty)
            var bounded = due("first", at: Sample.time(0, 120))
            bounded.feedsPerHost = 2
            let claims = try store.claim(bounded)
            #expect(claims.map(\.feeds) == [[a2, a3]], "\(factory.name): the two due longest")
            #expect(try store.dueCount(now: Sample.time(0, 120), atMost: nil) == 3, "none of them checked yet")
            let done = [a2, a3].map { ScheduledFeed(url: $0, nextCheck: Sample.time(1), lease: claims[0].lease) }
            #expect(try store.release(claims.map(\.lease), schedule: done, fetchedBy: "first").isEmpty)
            #expect(try store.claim(bounded).map(\.feeds) == [[a1]], "the one left, with the host's next claim")
        },
        Scenario("a claim takes the hosts whose feeds have waited longest first, whatever their names") { factory in
            let state = try await factory.makeState()
            let store = try state.process()
            let c1 = "http://c.example/1.xml"
            try store.subscribe([a1, b1, c1], now: Sample.time(0))
            // a.example and b.example fetched: due again at 0:30 and at 0:20; c.example never fetched.
            let fetched = try store.claim(due("first", hosts: 2))
            let hostOf = Dictionary(
                uniqueKeysWithValues: fetched.flatMap { claim in claim.feeds.map { ($0, claim.lease.host) } })
            #expect(Set(hostOf.keys) == [a1, b1], "\(factory.name): all due alike, in name order")
            let schedule = fetched.flatMap { claim in
                claim.feeds.map {
                    ScheduledFeed(url: $0, nextCheck: Sample.time(0, $0 == a1 ? 1800 : 1200), lease: claim.lease)
                }
            }
            #expect(try store.release(fetched.map(\.lease), schedule: schedule, fetchedBy: "first").isEmpty)
            // At 1:00 all three are due: c.example has waited since 0:00, b.example since 0:20.
            var order: [String] = []
            for _ in 0..<3 {
                order += try store.claim(due("first", hosts: 1, at: Sample.time(0, 3600))).map(\.lease.host)
            }
            #expect(order.count == 3 && !hostOf.values.contains(order[0]), "\(factory.name): c.example first: \(order)")
            #expect(
                Array(order.dropFirst()) == [b1, a1].compactMap { hostOf[$0] },
                "then b.example, then a.example: \(order)")
        },
        Scenario("a one-shot run's claim: its feeds' free hosts, with those of its feeds each serves, due or not") {
            factory in
            let state = try await factory.makeState()
            let store = try state.process()
            try store.subscribe([a1, a2, b1], now: Sample.time(0))
            let claims = try store.claim(
                ClaimRequest(scope: .feeds([a1]), hosts: 10, holder: "run", leaseSeconds: 60, now: Sample.time(0)))
            #expect(claims.map(\.feeds) == [[a1]], "\(factory.name)")
            let lease = try #require(claims.first).lease
            try store.record(Sample.fetched(a1, [Sample.entry("a")], at: Sample.time(0)), fencedBy: lease)
            let schedule = [ScheduledFeed(url: a1, nextCheck: Sample.time(0, 1800), lease: lease)]
            #expect(try store.release(claims.map(\.lease), schedule: schedule, fetchedBy: "store").isEmpty)
            #expect(try store.feed(a1)?.lastFetch == Sample.time(0))
            #expect(try store.feed(a1)?.nextCheck == Sample.time(0, 1800))
            #expect(try store.feed(b1)?.lastFetch == nil)
        },
        Scenario("release writes the schedule and who fetched each feed, and frees the hosts") { factory in
            let state = try await factory.makeState()
            let first = try state.process()
            let second = try state.process()
            try first.subscribe([a1, a2, b1], now: Sample.time(0))
            let claims = try first.claim(due("first"))
            #expect(claims.count == 2, "\(factory.name)")
            let leases = HostClaim.leasesByFeed(claims)
            for url in [a1, a2, b1] {
                try first.record(Sample.fetched(url, [Sample.entry(url)], at: Sample.time(0)), fencedBy: leases[url]!)
            }
            let schedule = [
                ScheduledFeed(url: a1, nextCheck: Sample.time(0, 3600), lease: leases[a1]!),
                ScheduledFeed(url: a2, nextCheck: Sample.time(1), lease: leases[a2]!),
                ScheduledFeed(url: b1, nextCheck: nil, lease: leases[b1]!),
            ]
            #expect(
                try first.release(claims.map(\.lease), schedule: schedule, fetchedBy: "first").isEmpty,
                "outcomes stored by release")
            let records = try second.feeds([a1, a2, b1])
            #expect(records[a1]?.record.nextCheck == Sample.time(0, 3600) && records[b1]?.record.nextCheck == nil)
            #expect(records[a1]?.record.fetchedBy == "first" && records[a1]?.record.leaseHolder == nil)
            #expect(records[a2]?.record.lastFetch == Sample.time(0))
            if let dates = records[a2]?.dates { #expect(dates.count == 1) }
            #expect(try second.dueCount(now: Sample.time(0, 1), atMost: nil) == 0)
            #expect(try second.dueCount(now: Sample.time(0, 3600), atMost: nil) == 1)
            #expect(try second.claim(due("second", at: Sample.time(0, 1))).isEmpty, "nothing due")
            let later = try second.claim(due("second", at: Sample.time(1)))
            #expect(later.map(\.feeds) == [[a1, a2]], "b1 is never due again (gone)")
            #expect(try second.release(later.map(\.lease), schedule: [], fetchedBy: "second").isEmpty)
        },
        Scenario("a feed that moved is claimed with its new host, and renamed onto its subscribed new URL") {
            factory in
            let state = try await factory.makeState()
            let store = try state.process()
            let moved = "http://c.example/1.xml"
            try store.subscribe([a1], now: Sample.time(0))
            let claims = try store.claim(due("run"))
            #expect(claims.map(\.feeds) == [[a1]], "\(factory.name)")
            let lease = try #require(claims.first).lease
            try store.record(
                Sample.fetched(a1, [Sample.entry("a")], at: Sample.time(0), movedTo: moved), fencedBy: lease)
            let next = [ScheduledFeed(url: a1, nextCheck: Sample.time(1), lease: lease)]
            #expect(try store.release(claims.map(\.lease), schedule: next, fetchedBy: "store").isEmpty)
            let later = try store.claim(due("run", at: Sample.time(1)))
            #expect(later.map(\.feeds) == [[a1]])
            let laterLease = try #require(later.first).lease
            #expect(laterLease.host != lease.host, "asked where it moved: another host")
            let after = [ScheduledFeed(url: a1, nextCheck: Sample.time(1), lease: laterLease)]
            #expect(try store.release(later.map(\.lease), schedule: after, fetchedBy: "store").isEmpty)
            // The list names the new URL (a row of its own, never fetched): the feed continues there.
            try store.subscribe([moved], now: Sample.time(1))
            try store.rename(feed: a1, to: moved)
            #expect(try store.feed(a1) == nil)
            #expect(try store.feed(moved)?.firstSeen == Sample.time(0))
            #expect(try store.ids(moved) == ["urn:sample:a"])
            #expect(try store.listedFeeds(now: Sample.time(1)) == [moved])
        },
    ]

    /// Claims again until the claim gives something (the other process's lease runs out), for at most `seconds`.
    static func claimOnceFree(_ store: any SharedStateStore, _ request: ClaimRequest, seconds: Double = 6)
        async throws -> [HostClaim]
    {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while true {
            let claims = try store.claim(request)
            if !claims.isEmpty || Date() > deadline { return claims }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    static let fencing: [Scenario<SharedStoreFactory>] = [
        Scenario("an outcome written under a lease lost since is dropped and counted; the new holder's stands") {
            factory in
            let state = try await factory.makeState()
            let first = try state.process()
            let second = try state.process()
            try first.subscribe([a1], now: Sample.time(0))
            let firstClaims = try first.claim(due("first", lease: 1))
            #expect(firstClaims.map(\.feeds) == [[a1]], "\(factory.name)")
            #expect(try second.claim(due("second")).isEmpty, "held: not claimed twice")
            // The first one's lease runs out (it stalled); the second claims the host.
            let secondClaims = try await claimOnceFree(second, due("second"))
            #expect(secondClaims.map(\.feeds) == [[a1]])
            #expect(secondClaims.first?.lease != firstClaims.first?.lease, "a new token")
            try second.record(Sample.failed(a1, "the holder's", at: Sample.time(0)), fencedBy: secondClaims[0].lease)
            #expect(try second.commit().isEmpty)
            try first.record(Sample.failed(a1, "too late", at: Sample.time(0)), fencedBy: firstClaims[0].lease)
            #expect(try first.commit().isEmpty, "dropped, not failed")
            #expect(first.takeDroppedOutcomes() == [a1])
            #expect(first.takeDroppedOutcomes().isEmpty, "said once")
            #expect(second.takeDroppedOutcomes().isEmpty)
            #expect(try second.feed(a1)?.lastError == "the holder's")
            #expect(try second.feed(a1)?.consecutiveFailures == 1)
            let lost = try first.release(
                firstClaims.map(\.lease),
                schedule: [ScheduledFeed(url: a1, nextCheck: nil, lease: firstClaims[0].lease)], fetchedBy: "first")
            #expect(lost == firstClaims.map(\.lease), "release says the lease was lost")
            #expect(try second.feeds([a1])[a1]?.record.nextCheck != nil, "a lost lease's schedule is not written")
            #expect(try second.release(secondClaims.map(\.lease), schedule: [], fetchedBy: "second").isEmpty)
        },
        Scenario("a keeper tells a lease lost, found by its renewal or by the fence, once") { factory in
            let state = try await factory.makeState()
            let first = try state.process()
            let second = try state.process()
            try first.subscribe([a1, b1], now: Sample.time(0))
            let firstClaims = try first.claim(due("first", lease: 1))
            #expect(firstClaims.count == 2, "\(factory.name)")
            // Both leases run out; the second process takes one host over, the first keeps the other.
            let taken = try await claimOnceFree(second, due("second", hosts: 1))
            let stolenClaim = try #require(firstClaims.first { $0.lease.host == taken.first?.lease.host })
            let stolen = stolenClaim.lease
            let told = Told()
            let keeper = first.makeLeaseKeeper(leaseSeconds: 1) { told.add($0) }
            keeper.keep(firstClaims.map(\.lease))
            try first.record(Sample.failed(stolenClaim.feeds[0], "too late", at: Sample.time(0)), fencedBy: stolen)
            _ = try first.commit()
            let deadline = Date(timeIntervalSinceNow: 5)
            while told.lost.isEmpty || told.renewed.isEmpty, Date() < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(told.lost == [stolen], "said once, however it was found")
            #expect(keeper.takeLost() == [stolen])
            #expect(keeper.takeLost().isEmpty)
            #expect(told.renewed.contains { $0.host != stolen.host }, "the lease still held is renewed")
            #expect(!told.renewed.contains(stolen))
            keeper.stop()
            let lost = try first.release(firstClaims.map(\.lease), schedule: [], fetchedBy: "first")
            #expect(lost == [stolen])
        },
        Scenario("a kept lease outlives its length; an abandoned one is free at once") { factory in
            let state = try await factory.makeState()
            let first = try state.process()
            let second = try state.process()
            try first.subscribe([a1], now: Sample.time(0))
            let claims = try first.claim(due("first", lease: 1))
            let keeper = first.makeLeaseKeeper(leaseSeconds: 1)
            keeper.keep(claims.map(\.lease))
            try await Task.sleep(for: .milliseconds(2500))
            #expect(try second.claim(due("second")).isEmpty, "\(factory.name): renewed, still held")
            #expect(keeper.takeLost().isEmpty)
            try keeper.abandon()
            let taken = try second.claim(due("second"))
            #expect(taken.map(\.feeds) == [[a1]], "let go at once, not when the lease runs out")
            #expect(try first.release(claims.map(\.lease), schedule: [], fetchedBy: "first") == claims.map(\.lease))
        },
    ]
}

/// What a lease keeper told, from whichever thread told it.
final class Told: @unchecked Sendable {
    // Unchecked: every field is read and written under `lock` only.
    private let lock = NSLock()
    private var lostLeases: [HostLease] = []
    private var renewedLeases: [HostLease] = []

    func add(_ change: LeaseChange) {
        lock.withLock {
            switch change {
            case .lost(let leases): lostLeases += leases
            case .renewed(let leases, _): renewedLeases += leases
            case .renewalFailed: break
            }
        }
    }

    var lost: [HostLease] { lock.withLock { lostLeases } }
    var renewed: [HostLease] { lock.withLock { renewedLeases } }
}
