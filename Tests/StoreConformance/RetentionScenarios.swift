import FeedModel
import FeedState
import Testing

/// Retention (`prune`): which entries go, and when every feed is gone over.
extension StoreConformance {
    static let retentionScenarios: [Scenario<StoreFactory>] = [
        Scenario("an entry still listed stays; one no longer listed goes by age or beyond the newest kept") { factory in
            let store = try await factory.make()
            let (a, b, c, d) = (Sample.entry("a"), Sample.entry("b"), Sample.entry("c"), Sample.entry("d"))
            try store.store(Sample.fetched(url, [a, b, c], at: Sample.time(0)))
            try store.store(Sample.fetched(url, [c, d], at: Sample.time(1)))
            // In store order c, d (listed), a, b: the newest three are c, d, a.
            try store.prune(feeds: [url], keepDays: 30, keepPerFeed: 3, now: Sample.time(1))
            #expect(try store.ids(url) == ["urn:sample:c", "urn:sample:d", "urn:sample:a"], "\(factory.name)")
            try store.prune(feeds: [url], keepDays: 30, keepPerFeed: 3, now: Sample.time(20))
            #expect(try store.ids(url).count == 3, "nothing older than 30 days yet")
            // Day 40: a was last seen 40 days ago; c and d 39, but the last fetch still lists them.
            try store.prune(feeds: [url], keepDays: 30, keepPerFeed: 100, now: Sample.time(40))
            #expect(try store.ids(url) == ["urn:sample:c", "urn:sample:d"])
            try store.prune(feeds: [url], keepDays: 0, keepPerFeed: 0, now: Sample.time(41))
            #expect(try store.ids(url) == ["urn:sample:c", "urn:sample:d"], "the last listing is never pruned")
            if let dates = try store.storedDates()[url] { #expect(dates.count == 2) }
            #expect(try store.history(of: url).summary.count == 2)
            // A 304 moves the last success on, not what counts as listed.
            try store.store(Sample.notModified(url, at: Sample.time(50)))
            try store.prune(feeds: [url], keepDays: 1, keepPerFeed: 0, now: Sample.time(50))
            #expect(try store.ids(url) == ["urn:sample:c", "urn:sample:d"])
        },
        Scenario("every feed is pruned once a day, and at once when asked for all; a new state waits a day") {
            factory in
            let store = try await factory.make()
            let changed = url
            let quiet = other
            for feed in [changed, quiet] {
                try store.store(Sample.fetched(feed, [Sample.entry("x"), Sample.entry("y")], at: Sample.time(0)))
                try store.store(Sample.fetched(feed, [Sample.entry("y")], at: Sample.time(1)))
            }
            // x is last seen on day 0 in both; only the changed feed is asked for.
            try store.prune(feeds: [changed], keepDays: 1, keepPerFeed: 100, now: Sample.time(5))
            #expect(try store.ids(changed) == ["urn:sample:y"], "\(factory.name)")
            #expect(try store.ids(quiet) == ["urn:sample:y", "urn:sample:x"], "a new state's first pass is a day away")
            try store.prune(feeds: [changed], keepDays: 1, keepPerFeed: 100, now: Sample.time(5, 3600))
            #expect(try store.ids(quiet).count == 2, "not a day since the state's first pruning")
            try store.prune(feeds: [changed], keepDays: 1, keepPerFeed: 100, now: Sample.time(6))
            #expect(try store.ids(quiet) == ["urn:sample:y"], "a day later every feed is gone over")
            // Asked for all: at once, whenever the last pass was.
            let third = "http://f.example/feed.xml"
            try store.store(Sample.fetched(third, [Sample.entry("x"), Sample.entry("y")], at: Sample.time(6)))
            try store.store(Sample.fetched(third, [Sample.entry("y")], at: Sample.time(7)))
            try store.prune(feeds: nil, keepDays: 1, keepPerFeed: 100, now: Sample.time(9))
            #expect(try store.ids(third) == ["urn:sample:y"])
        },
    ]
}
