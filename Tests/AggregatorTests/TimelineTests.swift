import Basics
import FeedModel
import Testing

@testable import Aggregator
@testable import FeedParse
@testable import TimelineMerge

@Suite struct TimelineTests {
    static let now = Timestamp(secondsSince1970: 1_700_000_000)

    static func entry(_ id: String?, link: String? = nil, at seconds: Int64?) -> Entry {
        var entry = Entry()
        entry.id = id
        entry.link = link
        entry.title = Text(id ?? link ?? "untitled")
        entry.published = seconds.map { Timestamp(secondsSince1970: $0) }
        return entry
    }

    static func feed(_ entries: [Entry], updated: Int64? = nil) -> ParsedFeed {
        var metadata = FeedMetadata()
        metadata.updated = updated.map { Timestamp(secondsSince1970: $0) }
        return ParsedFeed(format: .rss20, metadata: metadata, entries: entries)
    }

    static func source(_ n: Int) -> FeedSource { FeedSource(feedURL: "http://feed\(n).example/") }

    func timeline(_ adjust: (inout TimelineRules) -> Void = { _ in }) -> Timeline {
        var rules = TimelineRules(now: Self.now)
        rules.limit = nil
        adjust(&rules)
        return Timeline(rules: rules)
    }

    func ids(_ timeline: Timeline) -> [String] { timeline.entries.map { $0.entry.id ?? "-" } }

    @Test func newestFirstWithTiesBySubscriptionThenFeedOrder() {
        var t = timeline()
        // feed 1 arrives first, but feed 0 is listed first: ties follow the list, not arrival
        t.insert(
            feed: Self.feed([Self.entry("b1", at: 500), Self.entry("b2", at: 500)]), source: Self.source(1),
            subscription: 1)
        t.insert(
            feed: Self.feed([Self.entry("a1", at: 500), Self.entry("a2", at: 900)]), source: Self.source(0),
            subscription: 0)
        #expect(ids(t) == ["a2", "a1", "b1", "b2"])
    }

    @Test func arrivalOrderDoesNotChangeTheResult() {
        let feeds = (0..<20).map { n in
            Self.feed(
                (0..<10).map { k in
                    Self.entry("f\(n)e\(k)", link: "http://x/\(k % 7)/\(n % 3)", at: Int64((n * 37 + k * 11) % 50))
                })
        }
        var forward = timeline()
        var backward = timeline()
        for n in feeds.indices { forward.insert(feed: feeds[n], source: Self.source(n), subscription: n) }
        for n in feeds.indices.reversed() { backward.insert(feed: feeds[n], source: Self.source(n), subscription: n) }
        #expect(forward.entries == backward.entries)
    }

    @Test func duplicateByIdKeepsTheEarliestCopyAndRecordsTheOthers() {
        var t = timeline()
        t.insert(feed: Self.feed([Self.entry("urn:same", at: 300)]), source: Self.source(0), subscription: 0)
        t.insert(feed: Self.feed([Self.entry("urn:same", at: 100)]), source: Self.source(1), subscription: 1)
        t.insert(feed: Self.feed([Self.entry("urn:same", at: 200)]), source: Self.source(2), subscription: 2)
        let entries = t.entries
        #expect(entries.count == 1)
        #expect(entries[0].source.feedURL == "http://feed1.example/")
        #expect(entries[0].date.secondsSince1970 == 100)
        #expect(entries[0].alsoIn == ["http://feed0.example/", "http://feed2.example/"])
    }

    @Test func duplicateByNormalizedLink() {
        var t = timeline()
        t.insert(
            feed: Self.feed([Self.entry(nil, link: "https://Example.org:443/post/?utm_source=x#top", at: 100)]),
            source: Self.source(0), subscription: 0)
        t.insert(
            feed: Self.feed([Self.entry(nil, link: "http://example.org/post#top", at: 200)]), source: Self.source(1),
            subscription: 1)
        #expect(t.count == 1)
        #expect(t.duplicates.map(\.feedURL) == ["http://feed1.example/"])
    }

    /// The fragment is part of a link's identity: a day page with one anchor
    /// per post names several posts (Scripting News).
    @Test func linksThatDifferInTheFragmentAreDifferentEntries() {
        var t = timeline()
        let day = (0..<6).map { k in
            Self.entry("guid-\(k)", link: "http://scripting.com/2017/06/26.html#a08060\(k)", at: Int64(100 + k))
        }
        t.insert(feed: Self.feed(day), source: Self.source(0), subscription: 0)
        #expect(t.count == 6)
        #expect(t.duplicates.isEmpty)
    }

    /// Within one feed, different ids are different entries, even when every
    /// post links to the same page; such a shared link matches nothing in
    /// other feeds either, whatever order the feeds arrive in.
    @Test func entriesOfOneFeedWithDifferentIdsSharingALinkAreKept() {
        let home = "http://blog.example/"
        let feeds = [
            Self.feed((0..<4).map { Self.entry("post-\($0)", link: home, at: Int64(100 + $0)) }),
            Self.feed([Self.entry("other", link: home, at: 50)]),
        ]
        var forward = timeline()
        var backward = timeline()
        for n in [0, 1] { forward.insert(feed: feeds[n], source: Self.source(n), subscription: n) }
        for n in [1, 0] { backward.insert(feed: feeds[n], source: Self.source(n), subscription: n) }
        #expect(forward.count == 5)
        #expect(forward.entries == backward.entries)
    }

    /// An id that is no URI (`1`, `post-42`) means something only within its
    /// feed: two feeds' entries `1` are two entries; a `tag:` id is one entry anywhere.
    @Test func idsThatAreNoURIsOnlyMatchWithinTheirFeed() {
        var t = timeline()
        t.insert(feed: Self.feed([Self.entry("1", at: 100)]), source: Self.source(0), subscription: 0)
        t.insert(feed: Self.feed([Self.entry("1", at: 200)]), source: Self.source(1), subscription: 1)
        #expect(t.count == 2)
        t.insert(
            feed: Self.feed([Self.entry("tag:x.example,2024:1", at: 100)]), source: Self.source(2), subscription: 2)
        t.insert(
            feed: Self.feed([Self.entry("tag:x.example,2024:1", at: 300)]), source: Self.source(3), subscription: 3)
        #expect(t.count == 3)
        #expect(t.entries.map(\.entry.id) == ["1", "1", "tag:x.example,2024:1"])
    }

    @Test func theSameIdListedTwiceInOneFeedIsOneEntry() {
        var t = timeline()
        t.insert(
            feed: Self.feed([
                Self.entry("a", link: "http://x/1", at: 100), Self.entry("a", link: "http://x/1", at: 100),
            ]),
            source: Self.source(0), subscription: 0)
        #expect(t.count == 1)
        #expect(t.duplicates.count == 1)
    }

    @Test func linkFromAnotherFeedStillMergesACrossPost() {
        var t = timeline()
        t.insert(
            feed: Self.feed([Self.entry("a-1", link: "https://Example.org:443/post/?utm_source=x", at: 100)]),
            source: Self.source(0), subscription: 0)
        t.insert(
            feed: Self.feed([Self.entry("b-9", link: "http://example.org/post", at: 200)]), source: Self.source(1),
            subscription: 1)
        #expect(t.count == 1)
        #expect(t.entries.first?.alsoIn == ["http://feed1.example/"])
    }

    @Test(arguments: [
        ("https://Example.ORG:443/a/b/?utm_medium=rss&x=1&utm_campaign=c#frag", "http://example.org/a/b?x=1#frag"),
        ("http://example.org:80/", "http://example.org"),
        ("http://example.org:8080/a", "http://example.org:8080/a"),
        // Each of these differs from an already normal link in one place only.
        ("http://example.org:80/a", "http://example.org/a"),
        ("https://example.org:443/a", "http://example.org/a"),
        ("http://Example.org/a", "http://example.org/a"),
        ("http://example.org/a/", "http://example.org/a"),
        ("http://example.org/a#top", "http://example.org/a#top"),
        ("http://example.org/a/#top", "http://example.org/a#top"),
        ("http://example.org/a#", "http://example.org/a"),
        ("http://a.example/b #x", "http://a.example/b#x"),
        ("http://example.org/a?utm_source=x", "http://example.org/a"),
        ("http://example.org/A", "http://example.org/A"),
        ("https://example.org/a", "http://example.org/a"),
    ])
    func linkNormalization(_ link: String, _ normalized: String) {
        #expect(LinkNormalizer.normalize(link) == normalized)
        #expect(LinkNormalizer.normalize(normalized) == normalized, "normalizing twice changes the link")
    }

    @Test func limitKeepsTheNewestAndRejectsOlderEntriesWhenFull() {
        var t = timeline { $0.limit = 3 }
        t.insert(
            feed: Self.feed((1...5).map { Self.entry("e\($0)", at: Int64($0) * 10) }), source: Self.source(0),
            subscription: 0)
        #expect(ids(t) == ["e5", "e4", "e3"])
        let kept = t.insert(feed: Self.feed([Self.entry("old", at: 1)]), source: Self.source(1), subscription: 1)
        #expect(kept == 0)
        t.insert(feed: Self.feed([Self.entry("new", at: 45)]), source: Self.source(1), subscription: 1)
        #expect(ids(t) == ["e5", "new", "e4"])
    }

    /// A kept copy that replaced an earlier one answers to both copies'
    /// names; once it leaves a full timeline, none of those names may still
    /// lead to its slot, which a later entry reuses.
    @Test func namesOfAnEvictedEntryLeaveWithIt() {
        var t = timeline { $0.limit = 2 }
        t.insert(
            feed: Self.feed([Self.entry("X", link: "http://a/1", at: 100)]), source: Self.source(0), subscription: 0)
        // The same post (same link) under another id, dated earlier: it replaces X and answers to X too.
        t.insert(
            feed: Self.feed([Self.entry("Y", link: "http://a/1", at: 50)]), source: Self.source(1), subscription: 1)
        #expect(ids(t) == ["Y"])
        t.insert(feed: Self.feed([Self.entry("C", at: 200)]), source: Self.source(2), subscription: 2)
        t.insert(feed: Self.feed([Self.entry("D", at: 300)]), source: Self.source(3), subscription: 3)  // evicts Y
        t.insert(feed: Self.feed([Self.entry("E", at: 400)]), source: Self.source(4), subscription: 4)  // Y's slot
        #expect(ids(t) == ["E", "D"])
        // X again, newer than everything: a new entry, not a duplicate of whatever now sits in Y's slot.
        t.insert(feed: Self.feed([Self.entry("X", at: 500)]), source: Self.source(5), subscription: 5)
        #expect(ids(t) == ["X", "E"])
        #expect(t.entries.allSatisfy { $0.alsoIn.isEmpty })
    }

    @Test func perFeedSinceAndFuturePolicies() {
        var t = timeline {
            $0.perFeed = 2
            $0.since = Timestamp(secondsSince1970: 50)
        }
        t.insert(
            feed: Self.feed([
                Self.entry("a", at: 10), Self.entry("b", at: 60), Self.entry("c", at: 70), Self.entry("d", at: 80),
            ]),
            source: Self.source(0), subscription: 0)
        #expect(ids(t) == ["d", "c"])

        let future = Self.now.secondsSince1970 + 86_400
        var clamp = timeline()
        clamp.insert(feed: Self.feed([Self.entry("f", at: future)]), source: Self.source(0), subscription: 0)
        #expect(clamp.entries.first?.date == Self.now)
        #expect(clamp.entries.first?.entry.published == Self.now)
        var drop = timeline { $0.future = .drop }
        drop.insert(feed: Self.feed([Self.entry("f", at: future)]), source: Self.source(0), subscription: 0)
        #expect(drop.count == 0)
        var keep = timeline { $0.future = .keep }
        keep.insert(feed: Self.feed([Self.entry("f", at: future)]), source: Self.source(0), subscription: 0)
        #expect(keep.entries.first?.date.secondsSince1970 == future)
    }

    @Test func undatedEntriesTakeTheFeedDateElseTheRunTime() {
        var t = timeline()
        t.insert(feed: Self.feed([Self.entry("u1", at: nil)], updated: 1234), source: Self.source(0), subscription: 0)
        t.insert(feed: Self.feed([Self.entry("u2", at: nil)]), source: Self.source(1), subscription: 1)
        let dates = Dictionary(uniqueKeysWithValues: t.entries.map { ($0.entry.id!, $0.date.secondsSince1970) })
        #expect(dates["u1"] == 1234)
        #expect(dates["u2"] == Self.now.secondsSince1970)
    }

    @Test func sortedKeysStayInOrderThroughInsertsAndRemovals() {
        var keys = SortedKeys<Int>(chunkCapacity: 4)
        var reference: [Int] = []
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let value = Int.random(in: 0..<500, using: &generator)
            if Bool.random(using: &generator), let index = reference.firstIndex(of: value) {
                reference.remove(at: index)
                let removed = keys.remove(value)
                #expect(removed)
            } else {
                reference.append(value)
                keys.insert(value)
            }
        }
        #expect(keys.all == reference.sorted())
        #expect(keys.count == reference.count)
    }
}

/// The timeline's name index, with hashes chosen to collide.
@Suite struct NameIndexTests {
    static func key(_ n: Int32) -> TimelineKey { TimelineKey(date: Int64(n), subscription: n, entry: n) }

    @Test func collidingNamesAreKeptApartAndSurviveRemovals() {
        var index = NameIndex()
        // Five names in one run of the table (same hash), three more in the next places.
        let same = (0..<5).map { EntryName("same-\($0)", hash: 7) }
        let near = (0..<3).map { EntryName("near-\($0)", hash: 8 + $0) }
        for (n, name) in (same + near).enumerated() { index[name] = Self.key(Int32(n)) }
        #expect(index.count == 8)
        for (n, name) in (same + near).enumerated() { #expect(index[name] == Self.key(Int32(n))) }
        #expect(index[EntryName("same-9", hash: 7)] == nil, "an equal hash alone is not a match")

        index[same[1]] = nil
        index[same[3]] = nil
        index[near[0]] = nil
        #expect(index.count == 5)
        for name in [same[1], same[3], near[0]] { #expect(index[name] == nil) }
        for (n, name) in (same + near).enumerated() where ![1, 3, 5].contains(n) {
            #expect(index[name] == Self.key(Int32(n)), "\(name.name) lost after removals")
        }
        index[same[0]] = Self.key(99)
        #expect(index[same[0]] == Self.key(99) && index.count == 5)
    }

    @Test func growsWithoutLosingNames() {
        var index = NameIndex()
        let names = (0..<5000).map { EntryName("https://blog.example/\($0)") }
        for (n, name) in names.enumerated() { index[name] = Self.key(Int32(n)) }
        for (n, name) in names.enumerated() where n % 3 == 0 { index[name] = nil }
        #expect(index.count == 5000 - 1667)
        for (n, name) in names.enumerated() { #expect(index[name] == (n % 3 == 0 ? nil : Self.key(Int32(n)))) }
    }
}

extension TimelineTests {
    /// Entries that come in deferred (served from a state) give the timeline
    /// the same entries, dates, places and copies as the same entries given
    /// whole; only those it keeps are made (and those whose link the feed
    /// repeats, to tell them apart).
    @Test func deferredEntriesGiveTheSameTimelineAndOnlyTheKeptAreMade() {
        // Cross-posts between feeds (the same id, or the same link), and one feed that
        // links two different entries to its home page (a link that names neither).
        let feeds: [[Entry]] = (0..<12).map { n in
            var entries: [Entry] = []
            for k in 0..<9 {
                let id = k % 4 == 0 ? "tag:shared,\(k)" : "f\(n)e\(k)"
                let date = Int64((n * 37 + k * 11) % 60)
                entries.append(Self.entry(id, link: "http://x.example/\(n % 5)/\(k)", at: date))
            }
            if n == 3 {
                entries.append(Self.entry("home1", link: "http://x.example/", at: 55))
                entries.append(Self.entry("home2", link: "http://x.example/", at: 56))
            }
            return entries
        }
        let made = Locked(0)
        func run(deferring: (Int) -> Bool) -> [MergedEntry] {
            var t = timeline { $0.limit = 15 }
            for (n, entries) in feeds.enumerated() {
                let dates = entries.map(\.published)
                if deferring(n) {
                    let deferred = entries.map { entry in
                        Timeline.Deferred(id: entry.id, link: entry.link) {
                            made.withLock { $0 += 1 }
                            return entry
                        }
                    }
                    t.insert(deferred: deferred, dates: dates, source: Self.source(n), subscription: n)
                } else {
                    t.insert(feed: Self.feed(entries), dates: dates, source: Self.source(n), subscription: n)
                }
            }
            return t.takeEntries()
        }
        let whole = run { _ in false }
        #expect(whole.count == 15)
        #expect(whole.contains { !$0.alsoIn.isEmpty }, "the corpus has cross-posts")
        #expect(run { $0 % 2 == 0 } == whole)
        made.withLock { $0 = 0 }
        #expect(run { _ in true } == whole)
        // 15 kept, 2 made to tell feed 3's home-page entries apart: not the 110 that came in.
        #expect(made.withLock { $0 } == 17)
    }
}
