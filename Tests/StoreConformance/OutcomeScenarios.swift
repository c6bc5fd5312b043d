import FeedModel
import FeedState
import Testing

/// What each kind of outcome (`FeedUpdate.Outcome`) does to a feed's record.
extension StoreConformance {
    static let url = "http://a.example/feed.xml"
    static let other = "http://b.example/feed.xml"

    static let outcomeScenarios: [Scenario<StoreFactory>] = [
        Scenario("a fetched feed's record holds what its fetch said") { factory in
            let store = try await factory.make()
            let entries = [Sample.entry("a", date: Sample.time(-1)), Sample.entry("b")]
            try store.store(
                Sample.fetched(
                    url, entries, at: Sample.time(0), etag: "\"1\"", lastModified: "Tue, 14 Nov 2023 22:13:20 GMT",
                    title: "Alpha", restamping: true, notBefore: Sample.time(0, 3600)))
            let record = try #require(try store.feed(url), "\(factory.name)")
            #expect(record.url == url)
            #expect(record.etag == "\"1\"" && record.lastModified == "Tue, 14 Nov 2023 22:13:20 GMT")
            #expect(record.firstSeen == Sample.time(0) && record.lastFetch == Sample.time(0))
            #expect(record.lastSuccess == Sample.time(0) && record.lastStatus == 200)
            #expect(record.consecutiveFailures == 0 && record.lastError == nil && record.failingSince == nil)
            #expect(record.notBefore == Sample.time(0, 3600) && !record.gone && record.movedTo == nil)
            #expect(record.title == "Alpha" && record.link == "http://example.com/")
            #expect(record.metadata == Sample.metadata("Alpha"), "the metadata is stored whole")
            #expect(record.restamping)
            #expect(record.lastReport == ReportedOutcome(status: "ok", entriesInFeed: 2, reason: nil))
            #expect(try Set(store.feeds().keys) == [url], "\(factory.name)")
            #expect(try store.feed(other) == nil)
        },
        Scenario("a later fetch replaces the validators and the metadata, and keeps the first-seen time") { factory in
            let store = try await factory.make()
            try store.store(Sample.fetched(url, [Sample.entry("a")], at: Sample.time(0), etag: "\"1\"", title: "Old"))
            try store.store(
                Sample.fetched(
                    url, [Sample.entry("a")], at: Sample.time(1), etag: nil, lastModified: "Wed", title: "New",
                    status: 203))
            let record = try #require(try store.feed(url))
            #expect(record.etag == nil && record.lastModified == "Wed", "\(factory.name)")
            #expect(record.title == "New" && record.metadata == Sample.metadata("New"))
            #expect(record.firstSeen == Sample.time(0) && record.lastFetch == Sample.time(1))
            #expect(record.lastStatus == 203 && !record.restamping && record.notBefore == nil)
        },
        Scenario("not modified: a success that keeps the validators, the metadata and the entries") { factory in
            let store = try await factory.make()
            try store.store(Sample.fetched(url, [Sample.entry("a")], at: Sample.time(0), etag: "\"1\""))
            try store.store(Sample.failed(url, "timed out", at: Sample.time(1), status: nil))
            try store.store(Sample.notModified(url, at: Sample.time(2), notBefore: Sample.time(2, 600)))
            let record = try #require(try store.feed(url))
            #expect(record.lastFetch == Sample.time(2) && record.lastSuccess == Sample.time(2), "\(factory.name)")
            #expect(record.lastStatus == 304 && record.etag == "\"1\"" && record.title == "Feed")
            #expect(record.consecutiveFailures == 0 && record.failingSince == nil && record.lastError == nil)
            #expect(record.notBefore == Sample.time(2, 600) && record.metadata == Sample.metadata("Feed"))
            #expect(record.lastReport?.status == "not-modified")
            let entries = try store.stored(url).entries
            #expect(entries.map(\.lastSeen) == [Sample.time(0)], "a 304 lists nothing: the entries stay as stored")
            // A feed the state does not know, answered 304 (validators from elsewhere): known from that outcome.
            try store.store(Sample.notModified(other, at: Sample.time(3)))
            #expect(try store.feed(other)?.firstSeen == Sample.time(3))
        },
        Scenario("a failure counts a streak from its first time and keeps the feed's entries") { factory in
            let store = try await factory.make()
            try store.store(Sample.fetched(url, [Sample.entry("a")], at: Sample.time(0), etag: "\"1\""))
            try store.store(Sample.failed(url, "HTTP 500", at: Sample.time(1)))
            try store.store(Sample.failed(url, "could not resolve", at: Sample.time(2), status: nil))
            var record = try #require(try store.feed(url))
            #expect(record.consecutiveFailures == 2 && record.failingSince == Sample.time(1), "\(factory.name)")
            #expect(record.lastError == "could not resolve" && record.lastStatus == nil)
            #expect(record.lastFetch == Sample.time(2) && record.lastSuccess == Sample.time(0))
            #expect(record.etag == "\"1\"" && record.title == "Feed" && !record.gone)
            #expect(
                record.lastReport == ReportedOutcome(status: "failed", entriesInFeed: 0, reason: "could not resolve"))
            #expect(try store.ids(url) == ["urn:sample:a"])
            try store.store(Sample.fetched(url, [Sample.entry("b")], at: Sample.time(3)))
            record = try #require(try store.feed(url))
            #expect(record.consecutiveFailures == 0 && record.failingSince == nil && record.lastError == nil)
            // A feed whose first fetch fails is known from then.
            try store.store(Sample.failed(other, "refused", at: Sample.time(4)))
            let failing = try #require(try store.feed(other))
            #expect(failing.firstSeen == Sample.time(4) && failing.consecutiveFailures == 1)
            #expect(failing.failingSince == Sample.time(4) && failing.lastSuccess == nil && failing.metadata == nil)
        },
        Scenario("gone (410) stays gone through failures until a fetch succeeds") { factory in
            let store = try await factory.make()
            try store.store(Sample.fetched(url, [Sample.entry("a")], at: Sample.time(0)))
            try store.store(Sample.failed(url, "HTTP 410", at: Sample.time(1), status: 410, gone: true))
            #expect(try store.feed(url)?.gone == true, "\(factory.name)")
            #expect(try store.feed(url)?.lastReport?.status == "gone")
            try store.store(Sample.failed(url, "HTTP 500", at: Sample.time(2)))
            #expect(try store.feed(url)?.gone == true, "a later failure does not bring it back")
            #expect(try store.feed(url)?.consecutiveFailures == 2)
            try store.store(Sample.fetched(url, [Sample.entry("a")], at: Sample.time(3)))
            #expect(try store.feed(url)?.gone == false)
        },
        Scenario("a feed that fails, goes (410) and comes back: its streak from the first failure, gone until a fetch")
        {
            factory in
            let store = try await factory.make()
            try store.store(Sample.failed(url, "refused", at: Sample.time(0), status: nil))
            try store.store(Sample.failed(url, "HTTP 410", at: Sample.time(1), status: 410, gone: true))
            var record = try #require(try store.feed(url))
            #expect(record.gone && record.consecutiveFailures == 2, "\(factory.name)")
            #expect(record.failingSince == Sample.time(0) && record.firstSeen == Sample.time(0))
            #expect(record.lastSuccess == nil && record.lastStatus == 410 && record.lastError == "HTTP 410")
            #expect(record.metadata == nil && record.title == nil && record.etag == nil)
            try store.store(Sample.fetched(url, [Sample.entry("a")], at: Sample.time(2), title: "Back"))
            record = try #require(try store.feed(url))
            #expect(!record.gone && record.consecutiveFailures == 0 && record.failingSince == nil)
            #expect(
                record.lastError == nil && record.lastSuccess == Sample.time(2) && record.firstSeen == Sample.time(0))
            #expect(record.title == "Back" && record.metadata == Sample.metadata("Back") && record.etag == "\"e1\"")
            #expect(record.lastReport?.status == "ok")
        },
        Scenario("outcomes stored together: each starts from the record the one before it left") { factory in
            let store = try await factory.make()
            let moved = "http://c.example/new.xml"
            try store.store(Sample.fetched(url, [Sample.entry("a")], at: Sample.time(0), etag: "\"1\""))
            try store.store(Sample.failed(url, "HTTP 500", at: Sample.time(0, 60)))
            try store.record(all: [
                Sample.notModified(url, at: Sample.time(1), movedTo: moved, notBefore: Sample.time(1, 600)),
                Sample.failed(url, "HTTP 503", at: Sample.time(1, 1)),
                Sample.failed(other, "refused", at: Sample.time(1), status: nil),
                Sample.notModified(other, at: Sample.time(1, 2)),
                Sample.skipped("http://d.example/unknown.xml", at: Sample.time(1), reported: Sample.deferred),
            ])
            let record = try #require(try store.feed(url))
            #expect(record.movedTo == moved && record.etag == "\"1\"", "\(factory.name)")
            #expect(record.lastSuccess == Sample.time(1) && record.lastFetch == Sample.time(1, 1))
            #expect(record.consecutiveFailures == 1 && record.failingSince == Sample.time(1, 1))
            #expect(record.lastError == "HTTP 503" && record.notBefore == nil && record.lastStatus == 500)
            #expect(record.metadata == Sample.metadata("Feed") && record.lastReport?.status == "failed")
            let known = try #require(try store.feed(other))
            #expect(known.firstSeen == Sample.time(1) && known.lastSuccess == Sample.time(1, 2))
            #expect(known.consecutiveFailures == 0 && known.failingSince == nil && known.lastError == nil)
            #expect(known.lastStatus == 304 && known.metadata == nil && known.lastReport?.status == "not-modified")
            #expect(try store.feeds().count == 2, "a skip makes no record")
        },
        Scenario("a skipped feed (deferred, or gone and not asked) keeps its record but for how it was reported") {
            factory in
            let store = try await factory.make()
            try store.store(Sample.fetched(url, [Sample.entry("a")], at: Sample.time(0), notBefore: Sample.time(5)))
            let before = StoreFacts.describe(try #require(try store.feed(url)))
            try store.store(Sample.skipped(url, at: Sample.time(1), reported: Sample.deferred))
            let record = try #require(try store.feed(url))
            #expect(record.lastReport == Sample.deferred, "\(factory.name)")
            var unchanged = record
            unchanged.lastReport = ReportedOutcome(status: "ok", entriesInFeed: 1, reason: nil)
            #expect(StoreFacts.describe(unchanged) == before, "nothing else changes")
            try store.store(Sample.skipped(url, at: Sample.time(2), reported: nil))
            #expect(try store.feed(url)?.lastReport == Sample.deferred, "no report: the stored one stays")
            try store.store(Sample.skipped(other, at: Sample.time(2), reported: Sample.deferred))
            #expect(try store.feed(other) == nil, "a feed never stored is not made by a skip")
            #expect(try store.feeds().count == 1)
        },
        Scenario("a permanent redirect is remembered until the feed is renamed, which keeps its history") { factory in
            let store = try await factory.make()
            let moved = "http://c.example/new.xml"
            try store.store(Sample.fetched(url, [Sample.entry("a")], at: Sample.time(0), etag: "\"1\""))
            // A 304 after a 301: remembered as a move, as a 200 after one is.
            try store.store(Sample.notModified(url, at: Sample.time(1), movedTo: moved))
            #expect(try store.feed(url)?.movedTo == moved, "\(factory.name)")
            try store.store(Sample.failed(url, "HTTP 500", at: Sample.time(2)))
            #expect(try store.feed(url)?.movedTo == moved, "an outcome that names no move keeps the stored one")
            try store.store(Sample.fetched(url, [Sample.entry("a"), Sample.entry("b")], at: Sample.time(3)))
            try store.rename(feed: url, to: moved)
            #expect(try store.feed(url) == nil)
            #expect(try store.history(of: url).summary.count == 0)
            let record = try #require(try store.feed(moved))
            #expect(record.url == moved && record.movedTo == nil && record.firstSeen == Sample.time(0))
            #expect(record.consecutiveFailures == 0 && record.etag == "\"e1\"", "the last fetch's")
            let entries = try store.stored(moved).entries
            #expect(entries.map(\.entry.id) == ["urn:sample:a", "urn:sample:b"])
            #expect(entries.map(\.firstSeen) == [Sample.time(0), Sample.time(3)], "first seen where it was")
            if let dates = try store.storedDates()[moved] { #expect(dates.count == 2) }
            #expect(try store.storedDates()[url] == nil)
            try store.rename(feed: "http://d.example/none.xml", to: "http://d.example/other.xml")
            #expect(try store.feeds().count == 1, "renaming a feed the state does not know does nothing")
        },
        Scenario("forgotten validators make the next fetch whole; the rest of the record stays") { factory in
            let store = try await factory.make()
            try store.store(
                Sample.fetched(url, [Sample.entry("a")], at: Sample.time(0), etag: "\"1\"", lastModified: "Tue"))
            try store.store(Sample.fetched(other, [Sample.entry("b")], at: Sample.time(0), etag: "\"2\""))
            try store.forgetValidators(of: [url, "http://d.example/unknown.xml"])
            let record = try #require(try store.feed(url))
            #expect(record.etag == nil && record.lastModified == nil, "\(factory.name)")
            #expect(record.lastSuccess == Sample.time(0) && record.title == "Feed")
            #expect(try store.ids(url) == ["urn:sample:a"])
            #expect(try store.feed(other)?.etag == "\"2\"")
            #expect(try store.feeds().count == 2)
        },
        Scenario("many outcomes stored together, and outcomes recorded before one commit") { factory in
            let store = try await factory.make()
            let urls = (0..<5).map { "http://e\($0).example/feed.xml" }
            for (index, url) in urls.enumerated() {
                try store.record(Sample.fetched(url, [Sample.entry("e\(index)")], at: Sample.time(0)))
            }
            #expect(try store.commit().isEmpty, "\(factory.name)")
            #expect(try Set(store.feeds().keys) == Set(urls))
            try store.record(
                all: [
                    Sample.notModified(urls[0], at: Sample.time(1)),
                    Sample.failed(urls[1], "HTTP 503", at: Sample.time(1)),
                    Sample.skipped(urls[2], at: Sample.time(1), reported: Sample.deferred),
                ])
            #expect(try store.feed(urls[0])?.lastStatus == 304)
            #expect(try store.feed(urls[1])?.consecutiveFailures == 1)
            #expect(try store.feed(urls[2])?.lastReport == Sample.deferred)
            #expect(try store.feed(urls[3])?.lastFetch == Sample.time(0))
            try store.record(all: [])
            #expect(try store.ids(urls[4]) == ["urn:sample:e4"])
        },
        Scenario("the merged feed's id: the first kept stays") { factory in
            let store = try await factory.make()
            #expect(try store.mergedFeedID() == nil, "\(factory.name)")
            #expect(try store.keepMergedFeedID(7) == 7)
            #expect(try store.keepMergedFeedID(9) == 7)
            #expect(try store.mergedFeedID() == 7)
        },
    ]
}
