import FeedFetch
import FeedModel
import Foundation
import Subscriptions
import Testing
import TimelineMerge

@testable import Aggregator
@testable import FeedState
@testable import SQLiteState

/// What bounds a feed's stored entries' dates (`StoredDates`, kept beside
/// its record) lets a run leave unread the entries of a feed served from
/// the state that cannot get into its timeline. The bound must never be
/// below a date the dating policy gives; and a run must give the same
/// timeline with it as without it.
@Suite struct StoredDatesTests {
    /// A fixed-seed linear congruential generator, so that a failure repeats.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 16
        }
        mutating func int(_ range: ClosedRange<Int64>) -> Int64 {
            range.lowerBound + Int64(next() % UInt64(range.upperBound - range.lowerBound + 1))
        }
        mutating func maybe(_ range: ClosedRange<Int64>) -> Int64? { next() % 3 == 0 ? nil : int(range) }
    }

    static let day: Int64 = 86_400
    static let pivot: Int64 = 1_800_000_000

    @Test func noStoredEntryIsDatedAfterItsFeedsBound() {
        var random = Generator(state: 13)
        var checked = 0
        for _ in 0..<3000 {
            // Dates around the pivot (the time the entries were written), the run's time anywhere near it.
            let around = (Self.pivot - 30 * Self.day)...(Self.pivot + 30 * Self.day)
            let entries: [(sighting: EntrySighting, published: Timestamp?, updated: Timestamp?)] =
                (0..<random.int(0...5))
                .map { _ in
                    let firstSeen = random.int((Self.pivot - 30 * Self.day)...Self.pivot)
                    let sighting = EntrySighting(
                        firstSeen: stamp(firstSeen), lastSeen: stamp(random.int(firstSeen...Self.pivot)),
                        firstDate: random.maybe(around).map(stamp), firstPosition: Int(random.int(0...20)))
                    return (sighting, random.maybe(around).map(stamp), random.maybe(around).map(stamp))
                }
            let facts = StoredDates(entries.map { ($0.sighting, $0.published ?? $0.updated) }, pivot: stamp(Self.pivot))
            // As the state file gives them back.
            let stored = StoredDates(encoded: facts.encoded)
            #expect(stored == facts)
            var rules = TimelineRules(now: stamp(random.int(around)))
            rules.future = TimelineRules.FuturePolicy.allCases[Int(random.next() % 3)]
            let dating = EntryDating(
                rules: rules, keepDays: Int(random.int(0...90)), newFeedItems: Int(random.int(0...5)))
            let restamping = random.next() % 4 == 0
            let feedFirstSeen = entries.isEmpty || random.next() % 2 == 0 ? nil : entries[0].sighting.firstSeen
            let bound = dating.latestDate(of: facts)
            #expect((bound == nil) == entries.isEmpty)
            for entry in entries {
                let (date, _) = dating.date(
                    published: entry.published, updated: entry.updated, sighted: entry.sighting,
                    restamping: restamping, feedFirstSeen: feedFirstSeen)
                #expect(date <= bound!, "\(entry) at \(rules.now.rfc3339): \(date.rfc3339) after \(bound!.rfc3339)")
                checked += 1
            }
        }
        #expect(checked > 5000)
    }

    @Test func aFutureEntryIsBoundedByWhenItWasFirstSeenUntilItsDateComes() {
        let firstSeen = Self.pivot - Self.day
        let future = Self.pivot + 10 * Self.day
        let facts = StoredDates(
            [
                (
                    EntrySighting(
                        firstSeen: stamp(firstSeen), lastSeen: stamp(Self.pivot), firstDate: stamp(future),
                        firstPosition: 0), stamp(future)
                ),
                (
                    EntrySighting(
                        firstSeen: stamp(firstSeen - Self.day), lastSeen: stamp(Self.pivot),
                        firstDate: stamp(firstSeen - 5 * Self.day), firstPosition: 1), stamp(firstSeen - 5 * Self.day)
                ),
            ], pivot: stamp(Self.pivot))
        func bound(at now: Int64) -> Int64? {
            EntryDating(rules: TimelineRules(now: stamp(now))).latestDate(of: facts)?.secondsSince1970
        }
        #expect(bound(at: Self.pivot) == firstSeen)
        #expect(bound(at: future - 1) == firstSeen)
        #expect(bound(at: future) == future)
        #expect(bound(at: future + Self.day) == future)
    }

    @Test func theFactsOfManyEntriesSurviveTheStateFile() {
        let facts = StoredDates(
            count: 300, newestPast: -5, earliestFuture: nil, latest: 1 << 40, lastFirstSeen: 0,
            lastFirstSeenOfUndated: 7)
        #expect(StoredDates(encoded: facts.encoded) == facts)
        #expect(StoredDates(encoded: Array(facts.encoded.dropLast())) == nil)
        #expect(StoredDates(encoded: [2] + facts.encoded.dropFirst()) == nil)
    }

    static func rss(_ dates: [Int64], prefix: String) -> String {
        "<rss version=\"2.0\"><channel><title>\(prefix)</title><link>http://\(prefix).example/</link>"
            + dates.enumerated().map { n, date in
                "<item><guid>urn:\(prefix)\(n)</guid><title>\(prefix) \(n)</title>"
                    + "<pubDate>\(stamp(date).rfc822)</pubDate></item>"
            }.joined() + "</channel></rss>"
    }

    /// A feed served from the state (its file is gone) whose entries are all
    /// older than a full timeline's last is not read: its document, damaged
    /// here, is not even noticed, and the timeline is the one a run that
    /// reads it gives. Listed first, or with its facts unknown (a file from
    /// before schema 6), it is read (and the damage reported).
    @Test func aFeedWhoseEntriesCannotGetInIsNotRead() async throws {
        let workspace = try StateTests.Workspace("stored-dates")
        defer { withExtendedLifetime(workspace) {} }
        let recent = workspace.path("recent.xml")
        let old = workspace.path("old.xml")
        let now = Self.pivot
        try Data(Self.rss([now - 3600, now - 7200, now - 10800], prefix: "recent").utf8)
            .write(to: URL(fileURLWithPath: recent))
        try Data(Self.rss([now - 400 * Self.day, now - 401 * Self.day], prefix: "old").utf8)
            .write(to: URL(fileURLWithPath: old))
        var rules = TimelineRules(now: stamp(now))
        rules.limit = 3
        func run(_ urls: [String], state path: String) async throws -> RunResult {
            var list = SubscriptionList()
            list.subscriptions = urls.map { Subscription(url: $0, mayReadLocalFile: true) }
            let state = StateOptions(store: try SQLiteStateStore(path: path))
            let result = await Aggregator.run(list, client: HTTPClient(), rules: rules, state: state)
            _ = try await state.session.withStore { store throws(StateError) in try store.commit().count }
            return result
        }
        let first = try await run([recent, old], state: workspace.state)
        #expect(first.timeline.entries.map(\.entry.id) == ["urn:recent0", "urn:recent1", "urn:recent2"])
        // The old feed's document damaged (its facts kept, as by a damage no trigger sees), its
        // file gone: a second run serves it from the state.
        do {
            let database = try SQLiteDatabase(path: workspace.state)
            try database.execute(
                """
                CREATE TEMP TABLE kept AS SELECT id, entry_dates FROM feeds;
                UPDATE feed_entries SET document = x'02f1ff' WHERE feed = (SELECT id FROM feeds WHERE url = '\(old)');
                UPDATE feeds SET entry_dates = (SELECT entry_dates FROM kept WHERE kept.id = feeds.id);
                """)
        }
        try FileManager.default.removeItem(atPath: old)
        let unknown = workspace.path("unknown.sqlite")
        try FileManager.default.copyItem(atPath: workspace.state, toPath: unknown)
        do {
            let database = try SQLiteDatabase(path: unknown)
            try database.execute("UPDATE feeds SET entry_dates = NULL")
        }
        let other = workspace.path("other.sqlite")
        try FileManager.default.copyItem(atPath: workspace.state, toPath: other)

        func notices(_ result: RunResult) -> [String] { result.reports.first { $0.subscription.url == old }!.notices }
        let skipped = try await run([recent, old], state: workspace.state)
        let read = try await run([recent, old], state: unknown)
        let oldFirst = try await run([old, recent], state: other)
        #expect(notices(skipped).isEmpty)
        #expect(notices(read).contains { $0.contains("cannot be read") })
        #expect(notices(oldFirst).contains { $0.contains("cannot be read") })
        #expect(skipped.timeline.entries.map(\.entry) == read.timeline.entries.map(\.entry))
        #expect(skipped.timeline.entries.map(\.entry) == first.timeline.entries.map(\.entry))
    }
}

/// A document written by anything but this code (an older feedmerge, which
/// knows nothing of the facts) makes its feed's facts unknown: they cannot
/// say a feed's entries are older than they are.
@Suite struct StoredDatesForgottenTests {
    @Test func aDocumentWrittenWithoutItsFactsForgetsThem() throws {
        let workspace = try StateTests.Workspace("stored-dates-forgotten")
        defer { withExtendedLifetime(workspace) {} }
        let store = try SQLiteStateStore(path: workspace.state)
        for url in ["http://a.example/", "http://b.example/"] {
            var entry = Entry()
            entry.id = "urn:\(url)"
            entry.published = Timestamp(secondsSince1970: 1_000)
            try store.record(ReviewStateTests.fetched(PreparedEntries([entry]), url: url, now: 2_000))
        }
        _ = try store.commit()
        #expect(
            try store.storedDates().mapValues(\.latest) == ["http://a.example/": 1_000, "http://b.example/": 1_000])
        let database = try SQLiteDatabase(path: workspace.state)
        // As schema 5's code writes a document: an update in place, and a replacement.
        try database.execute(
            "UPDATE feed_entries SET document = document WHERE feed = (SELECT id FROM feeds WHERE url = 'http://a.example/')"
        )
        try database.execute(
            """
            INSERT OR REPLACE INTO feed_entries(feed, document)
            SELECT feed, document FROM feed_entries WHERE feed = (SELECT id FROM feeds WHERE url = 'http://b.example/')
            """)
        #expect(try store.storedDates().isEmpty)
    }
}

private func stamp(_ seconds: Int64) -> Timestamp { Timestamp(secondsSince1970: seconds) }
