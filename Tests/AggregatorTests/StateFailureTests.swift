import FeedFetch
import FeedModel
import Foundation
import Testing

@testable import Aggregator
@testable import FeedState
import Subscriptions
import TimelineMerge

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
        var keepsEntries: Bool { inner.keepsEntries }
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
        func sightings(of url: String) throws(StateError) -> [String: EntrySighting] { try inner.sightings(of: url) }
        func entries(of url: String, notOlderThan: Timestamp?, except: Set<String>) throws(StateError)
            -> [StoredEntry]
        { try inner.entries(of: url, notOlderThan: notOlderThan, except: except) }
        func summary(of url: String) throws(StateError) -> (count: Int, newest: Timestamp?) {
            try inner.summary(of: url)
        }
        func prune(feeds: [String]?, keepDays: Int, keepPerFeed: Int, now: Timestamp) throws(StateError) {
            if failRecord { throw failure() }
            try inner.prune(feeds: feeds, keepDays: keepDays, keepPerFeed: keepPerFeed, now: now)
        }
    }

    func run(_ store: FailingStore) async -> RunResult {
        var list = SubscriptionList()
        list.subscriptions = [Subscription(url: server.url("/feed/sf1"))]
        return await Aggregator.run(
            list, client: HTTPClient(), rules: TimelineRules(now: Timestamp(secondsSince1970: 1_706_745_600)),
            state: StateOptions(store: store))
    }

    @Test func unreadableRecordsAreARunDiagnostic() async throws {
        let store = FailingStore()
        let first = await run(store)
        #expect(first.diagnostics.isEmpty && first.reports.first?.status == .ok)
        store.failFeeds = true
        let second = await run(store)
        #expect(second.reports.first?.status == .ok, "the feed was not fetched unconditionally")
        let diagnostic = try #require(second.diagnostics.first)
        #expect(diagnostic.contains("malformed") && diagnostic.contains("unconditionally"), "\(diagnostic)")
    }

    @Test func aFeedThatCannotBeStoredSaysSoAndKeepsItsFreshEntries() async throws {
        let store = FailingStore()
        store.failRecord = true
        let result = await run(store)
        let report = try #require(result.reports.first)
        #expect(report.status == .ok)
        #expect(report.notices.contains { $0.contains("malformed") }, "\(report.notices)")
        #expect(report.entriesKept > 0 && result.timeline.count == report.entriesKept)
        #expect(result.diagnostics.contains { $0.contains("pruned") }, "\(result.diagnostics)")
    }

    /// The command line: a state file whose feed table cannot be read (an
    /// unreadable database) no longer silently turns conditional GET off:
    /// the run stops before fetching, exit 74, with the path, and leaves
    /// the outputs as they were.
    @Test func theCommandSaysWhenTheStateCannotBeRead() async throws {
        let w = try StateTests.Workspace("unreadable")
        let arguments = [
            server.url("/feed/sf2"), "-o", w.path("out.atom"), "--now", "2024-02-01T00:00:00Z", "--state", w.state,
        ]
        let first = try CommandRun.feedmerge(arguments)
        #expect(first.status == 0, "\(first.standardError)")
        let before = try Data(contentsOf: URL(fileURLWithPath: w.path("out.atom")))
        do {
            let database = try SQLiteDatabase(path: w.state)
            try database.execute("ALTER TABLE feeds RENAME COLUMN restamping TO restamping_damaged")
        }
        let second = try CommandRun.feedmerge(arguments)
        #expect(second.status == 74, "\(second.standardError)")
        #expect(second.standardError.contains(w.state) && second.standardError.contains("nothing was done"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: w.path("out.atom"))) == before)
    }
}
