import FeedFetch
import FeedModel
import Foundation
import Subscriptions
import Testing
import TimelineMerge

@testable import Aggregator
@testable import FeedState
@testable import SQLiteState
@testable import StateDocument

/// A state that fails is said so, never silently worked around: a run
/// whose feed records cannot be read fetches unconditionally and says why;
/// a feed whose entries cannot be stored still gives its fresh entries.
@Suite(.serialized) struct StateFailureTests {
    let server = PlanetServer.state

    /// A memory store with chosen methods failing.
    final class FailingStore: StateStore {
        let inner = MemoryStateStore()
        var failFeeds = false
        var failRecord = false
        var failDates = false
        var keepsEntries: Bool { inner.keepsEntries }
        func storedDates() throws(StateError) -> [String: StoredDates] {
            if failDates { throw failure() }
            return try inner.storedDates()
        }
        func failure() -> StateError { StateError(path: "test.sqlite", message: "database disk image is malformed") }
        func feeds() throws(StateError) -> [String: FeedRecord] {
            if failFeeds { throw failure() }
            return try inner.feeds()
        }
        func feed(_ url: String) throws(StateError) -> FeedRecord? { try inner.feed(url) }
        func record(_ update: FeedUpdate) throws(StateError) {
            if failRecord { throw failure() }
            try inner.record(update)
        }
        func record(all updates: [FeedUpdate]) throws(StateError) {
            if failRecord { throw failure() }
            try inner.record(all: updates)
        }
        func history(of url: String) throws(StateError) -> FeedHistory { try inner.history(of: url) }
        func forgetValidators(of urls: [String]) throws(StateError) { try inner.forgetValidators(of: urls) }
        func rename(feed url: String, to newURL: String) throws(StateError) { try inner.rename(feed: url, to: newURL) }
        func prune(feeds: [String]?, keepDays: Int, keepPerFeed: Int, now: Timestamp) throws(StateError) {
            if failRecord { throw failure() }
            try inner.prune(feeds: feeds, keepDays: keepDays, keepPerFeed: keepPerFeed, now: now)
        }
    }

    func control(_ path: String) async throws {
        _ = try await HTTPClient().fetch(FetchRequest(url: server.url(path)))
    }

    func run(_ session: StateSession) async -> RunResult {
        var list = SubscriptionList()
        list.subscriptions = [Subscription(url: server.url("/feed/sf1"))]
        return await Aggregator.run(
            list, client: HTTPClient(), rules: TimelineRules(now: Timestamp(secondsSince1970: 1_706_745_600)),
            state: StateOptions(session: session))
    }

    /// Changes the session's failing store between runs.
    func failing(_ session: StateSession, _ change: @escaping @Sendable (FailingStore) -> Void) async {
        await session.withStore { change($0 as! FailingStore) }
    }

    @Test func unreadableRecordsAreARunDiagnostic() async throws {
        let store = StateSession(FailingStore())
        let first = await run(store)
        #expect(first.diagnostics.isEmpty && first.reports.first?.status == .ok)
        await failing(store) { $0.failFeeds = true }
        let second = await run(store)
        #expect(second.reports.first?.status == .ok, "the feed was not fetched unconditionally")
        let diagnostic = try #require(second.diagnostics.first)
        #expect(diagnostic.contains("malformed") && diagnostic.contains("unconditionally"), "\(diagnostic)")
    }

    @Test func unreadableStoredDatesAreARunDiagnostic() async throws {
        let store = StateSession(FailingStore())
        _ = await run(store)
        await failing(store) { $0.failDates = true }
        let second = await run(store)
        #expect(second.reports.first?.status == .ok || second.reports.first?.status == .notModified)
        #expect(
            second.diagnostics.contains { $0.contains("malformed") && $0.contains("dates") }, "\(second.diagnostics)")
    }

    @Test func aFeedThatCannotBeStoredSaysSoAndKeepsItsFreshEntries() async throws {
        let store = StateSession(FailingStore())
        await failing(store) { $0.failRecord = true }
        let result = await run(store)
        let report = try #require(result.reports.first)
        #expect(report.status == .ok)
        #expect(report.notices.contains { $0.contains("malformed") }, "\(report.notices)")
        #expect(report.entriesKept > 0 && result.timeline.count == report.entriesKept)
        #expect(result.diagnostics.contains { $0.contains("pruned") }, "\(result.diagnostics)")
    }

    /// A failing feed whose outcome cannot be recorded still gives the
    /// entries its state can read (they were left out when any state step failed).
    @Test func anOutcomeThatCannotBeRecordedKeepsTheStoredEntries() async throws {
        let store = StateSession(FailingStore())
        let first = await run(store)
        let kept = try #require(first.reports.first?.entriesKept)
        #expect(kept > 0)
        try await control("/set/sf1/fail")
        defer { Task { try? await control("/set/sf1/ok") } }
        await failing(store) { $0.failRecord = true }
        let second = await run(store)
        let report = try #require(second.reports.first)
        #expect(report.status == .failed && report.stateFailed)
        #expect(report.entriesKept == kept, "\(report.notices)")
    }

    /// The SQLite store stores outcomes on its writer's thread: one the
    /// writer cannot store is undone alone (the other feeds of its batch
    /// stay), reported on its feed at the end of the run, and its fresh
    /// entries still reach the timeline.
    @Test func anOutcomeTheWriterCannotStoreIsReportedAndUndoneAlone() async throws {
        let w = try StateTests.Workspace("writer-failure")
        let state = StateOptions(store: try SQLiteStateStore(path: w.state))
        let (good, refused) = (server.url("/feed/sf1"), server.url("/feed/sf2"))
        do {
            let database = try SQLiteDatabase(path: w.state)
            try database.execute(
                """
                CREATE TRIGGER refuse BEFORE INSERT ON feed_entries
                WHEN NEW.feed = (SELECT id FROM feeds WHERE url = '\(refused)')
                BEGIN SELECT RAISE(ABORT, 'refused by a test trigger'); END
                """)
        }
        var list = SubscriptionList()
        list.subscriptions = [
            Subscription(url: good, mayReadLocalFile: true), Subscription(url: refused, mayReadLocalFile: true),
        ]
        let result = await Aggregator.run(
            list, client: HTTPClient(), rules: TimelineRules(now: Timestamp(secondsSince1970: 1_706_745_600)),
            state: state)
        let reports = result.reports
        #expect(reports.count == 2 && reports.allSatisfy { $0.status == .ok })
        #expect(!reports[0].stateFailed, "\(reports[0].notices)")
        #expect(reports[1].stateFailed && reports[1].notices.contains { $0.contains("refused by a test trigger") })
        #expect(reports[1].entriesKept > 0, "its fresh entries are in the timeline")
        let (stored, sighted, refusedStored, refusedSighted) = try await state.session.withStore {
            store throws(StateError) in
            (
                try store.feed(good)?.lastSuccess != nil, try !store.history(of: good).sightings.isEmpty,
                try store.feed(refused) != nil, try !store.history(of: refused).sightings.isEmpty
            )
        }
        #expect(stored && sighted)
        #expect(!refusedStored && !refusedSighted, "nothing of the refused outcome is stored")
    }

    /// The command line: one stored entry that cannot be read costs that
    /// entry, not the feed's others; the run (and a render) says so (even
    /// with `-q`) and exits 74 with the outputs written.
    @Test func aDamagedStoredEntryCostsOnlyThatEntry() async throws {
        let w = try StateTests.Workspace("damaged-row")
        let arguments = [
            server.url("/feed/sf3"), "-o", w.path("out.json"), "--now", "2024-02-01T00:00:00Z", "--state", w.state,
            "-q",
        ]
        let first = try await CommandRun.feedmerge(arguments)
        #expect(first.status == 0, "\(first.standardError)")
        do {  // the stored form of the entry whose key sorts first, inside the feed's document
            let database = try SQLiteDatabase(path: w.state)
            var stored: [UInt8] = []
            try database.prepare("SELECT document FROM feed_entries").query { stored = $0.blob(0) }
            var rows = try #require(FeedEntries(document: stored)).rows
            let first = try #require(rows.indices.min { rows[$0].key < rows[$1].key })
            rows[first].stored = [0xFF]
            try database.prepare("UPDATE feed_entries SET document = ?").run([.blob(FeedEntries(rows: rows).document)])
        }
        let second = try await CommandRun.feedmerge(arguments)  // a 304: every entry comes from the state
        #expect(second.status == 74, "\(second.standardError)")
        #expect(second.standardError.contains("1 stored entries cannot be read"), "\(second.standardError)")
        let items = { (run: Int) throws -> Int in
            let object = try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: w.path("out.json"))))
            return ((object as? [String: Any])?["items"] as? [Any])?.count ?? -run
        }
        #expect(try items(2) == 3)  // four before
        // A render shows what the state holds: a damaged value costs its entry, not the outputs
        // (a state that fails a render, a lost server, costs them: RenderInPartsTests).
        let render = try await CommandRun.feedmerge([
            "render", server.url("/feed/sf3"), "-o", w.path("render.json"), "--now", "2024-02-01T01:00:00Z",
            "--state", w.state, "-q",
        ])
        #expect(render.status == 74, "\(render.standardError)")
        let rendered = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: w.path("render.json"))))
        #expect(((rendered as? [String: Any])?["items"] as? [Any])?.count == 3)
    }

    /// The command line: the daily full prune keeps what a feed answering
    /// 304 still lists (a 304 moved the time it compared with, so the
    /// entries of the last 200 counted as gone).
    @Test func notModifiedFeedsKeepTheirEntriesThroughThePrune() async throws {
        let w = try StateTests.Workspace("prune-304")
        func run(_ now: String) async throws -> Int {
            let result = try await CommandRun.feedmerge([
                server.url("/feed/sf4"), "-o", w.path("out.json"), "--now", now, "--state", w.state,
                "--keep-per-feed", "2", "-q",
            ])
            #expect(result.status == 0, "\(result.standardError)")
            let object = try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: w.path("out.json"))))
            return ((object as? [String: Any])?["items"] as? [Any])?.count ?? 0
        }
        let listed = try await run("2024-06-01T00:00:00Z")
        #expect(listed == 4)
        #expect(try await run("2024-06-02T00:00:01Z") == listed)  // 304; the first full prune
        #expect(try await run("2024-06-02T00:00:02Z") == listed)  // 304
        #expect(try await run("2024-06-04T00:00:00Z") == listed)  // 304; the next full prune
    }

    /// The command line: a state file whose feed table cannot be read (an
    /// unreadable database) does not silently turn conditional GET off:
    /// the run stops before fetching, exit 74, with the path, and leaves
    /// the outputs as they were.
    @Test func theCommandSaysWhenTheStateCannotBeRead() async throws {
        let w = try StateTests.Workspace("unreadable")
        let arguments = [
            server.url("/feed/sf2"), "-o", w.path("out.atom"), "--now", "2024-02-01T00:00:00Z", "--state", w.state,
        ]
        let first = try await CommandRun.feedmerge(arguments)
        #expect(first.status == 0, "\(first.standardError)")
        let before = try Data(contentsOf: URL(fileURLWithPath: w.path("out.atom")))
        do {
            let database = try SQLiteDatabase(path: w.state)
            try database.execute("ALTER TABLE feeds RENAME COLUMN restamping TO restamping_damaged")
        }
        let second = try await CommandRun.feedmerge(arguments)
        #expect(second.status == 74, "\(second.standardError)")
        #expect(second.standardError.contains(w.state) && second.standardError.contains("nothing was done"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: w.path("out.atom"))) == before)
    }
}
