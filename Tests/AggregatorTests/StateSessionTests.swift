import Basics
import FeedFetch
import FeedModel
import Foundation
import PostgreSQLState
import Subscriptions
import TestSupport
import Testing
import TimelineMerge

@testable import Aggregator
@testable import FeedState
@testable import SQLiteState

/// The store's calls never run on Swift's cooperative pool: SQLite's reads
/// and busy timeout, and the writer's back-pressure, block the session's
/// thread instead, while the pool's few threads fetch and parse.
@Suite(.serialized) struct StateSessionTests {
    /// A SQLite store that notes the thread of every call the run makes.
    /// (Unchecked: the test reads `threads` under `lock` after the runs; the store itself
    /// is called by the session alone.)
    final class ThreadNotingStore: StateStore, @unchecked Sendable {
        let inner: SQLiteStateStore
        private let lock = NSLock()
        private var names: [String] = []
        init(path: String) throws { inner = try SQLiteStateStore(path: path) }
        var threads: Set<String> { lock.withLock { Set(names) } }
        private func note(_ call: String) {
            let name =
                ThreadExecutor.nameOfCurrent == "feedmerge state" ? "the session's thread" : "another thread (\(call))"
            lock.withLock { names.append(name) }
        }
        var keepsEntries: Bool { inner.keepsEntries }
        func feeds() throws(StateError) -> [String: FeedRecord] { note("feeds"); return try inner.feeds() }
        func feed(_ url: String) throws(StateError) -> FeedRecord? { note("feed"); return try inner.feed(url) }
        func record(_ update: FeedUpdate) throws(StateError) { note("record"); try inner.record(update) }
        func commit() throws(StateError) -> [String: StateError] { note("commit"); return try inner.commit() }
        func record(all updates: [FeedUpdate]) throws(StateError) {
            note("record(all:)"); try inner.record(all: updates)
        }
        func forgetValidators(of urls: [String]) throws(StateError) {
            note("forgetValidators")
            try inner.forgetValidators(of: urls)
        }
        func history(of url: String) throws(StateError) -> FeedHistory {
            note("history")
            return try inner.history(of: url)
        }
        func rename(feed url: String, to newURL: String) throws(StateError) {
            note("rename"); try inner.rename(feed: url, to: newURL)
        }
        func storedDates() throws(StateError) -> [String: StoredDates] {
            note("storedDates"); return try inner.storedDates()
        }
        func prune(feeds: [String]?, keepDays: Int, keepPerFeed: Int, now: Timestamp) throws(StateError) {
            note("prune")
            try inner.prune(feeds: feeds, keepDays: keepDays, keepPerFeed: keepPerFeed, now: now)
        }
        func finish() { inner.finish() }
    }

    @Test func everyStoreCallRunsOnTheSessionsThread() async throws {
        let w = try StateTests.Workspace("state-thread")
        var list = SubscriptionList()
        for index in 0..<12 {
            let path = w.path("feed\(index).xml")
            let items = (0..<5).map { "<item><guid>urn:\(index):\($0)</guid><title>t\($0)</title></item>" }.joined()
            try Data("<rss version=\"2.0\"><channel><title>f\(index)</title>\(items)</channel></rss>".utf8)
                .write(to: URL(fileURLWithPath: path))
            list.subscriptions.append(Subscription(url: path, mayReadLocalFile: true))
        }
        let store = try ThreadNotingStore(path: w.state)
        var options = StateOptions(store: store)
        options.health = true
        for run in 0..<2 {  // a first run, then one that reads back what the first stored
            let result = await Aggregator.run(
                list, client: HTTPClient(),
                rules: TimelineRules(now: Timestamp(secondsSince1970: 1_706_745_600 + Int64(run))),
                state: options)
            #expect(result.timeline.count == 60 && result.diagnostics.isEmpty, "\(result.diagnostics)")
        }
        await options.session.withStore { $0.finish() }
        #expect(store.threads == ["the session's thread"], "the store was called on \(store.threads)")
    }

    /// A store is opened (a file's migrations, a server's connection) on its session's thread.
    @Test func aStoreIsOpenedOnItsSessionsThread() async throws {
        let w = try StateTests.Workspace("state-open")
        let openedOn = Locked<String?>(nil)
        let session = try await StateSession.open { [path = w.state] () throws(StateError) in
            openedOn.withLock { $0 = ThreadExecutor.nameOfCurrent }
            return try SQLiteStateStore(path: path)
        }
        #expect(openedOn.withLock { $0 } == "feedmerge state")
        #expect(try await session.withStore { store throws(StateError) in try store.feeds().isEmpty })
        // A file where its folder would be: the store cannot be opened, and the session never was.
        try Data("a file".utf8).write(to: URL(fileURLWithPath: w.path("blocker")))
        let unopenable = w.path("blocker/state.sqlite")
        await #expect(throws: StateError.self) {
            _ = try await StateSession.open { () throws(StateError) in try SQLiteStateStore(path: unopenable) }
        }
    }

    /// A run under claims writes under its leases and nothing else: the fence is the run's,
    /// and the store, which has no mode, writes whatever it is given without a lease.
    @Test func aRunUnderClaimsWritesOnlyTheFeedsItClaimed() async throws {
        let (a1, b1) = ("http://a.example/1.xml", "http://b.example/1.xml")
        let session = StateSession(try PostgreSQLStateStore(connecting: await PostgreSQLServer.shared.database()))
        let now = Timestamp(secondsSince1970: 1_706_745_600)
        let claims = try await session.withSharedStore { store throws(StateError) in
            try store.subscribe([a1, b1], now: now)
            return try store.claim(
                ClaimRequest(scope: .feeds([a1]), hosts: 10, holder: "run", leaseSeconds: 60, now: now))
        }
        #expect(claims.map(\.feeds) == [[a1]])
        func failed(_ url: String) -> FeedUpdate {
            FeedUpdate(
                url: url, outcome: .failed(message: "refused", gone: false), status: 500, movedTo: nil,
                notBefore: nil, now: now)
        }
        try await Self.record([failed(a1), failed(b1)], fencedBy: HostClaim.leasesByFeed(claims), on: session)
        let (claimed, other) = try await session.withStore { store throws(StateError) in
            (try store.feed(a1)?.lastError, try store.feed(b1)?.lastFetch)
        }
        #expect(claimed == "refused")
        #expect(other == nil, "a feed the run did not claim is not written")
        // Without a lease, the store writes: it has no mode left by the claim.
        try await Self.record([failed(b1)], fencedBy: nil, on: session)
        #expect(try await session.withStore { store throws(StateError) in try store.feed(b1)?.lastError } == "refused")
    }

    /// A read-only session (`feedmerge render`) reads the store and writes nothing: its runs'
    /// outcomes, pending outcomes, damaged feeds' validators, prunes and renames, and the merged
    /// feed's id, are all left undone, whatever the run asks.
    @Test func aReadOnlySessionsRunsWriteNothing() async throws {
        let w = try StateTests.Workspace("state-read-only")
        let (a1, b1) = ("http://a.example/1.xml", "http://b.example/1.xml")
        let now = Timestamp(secondsSince1970: 1_706_745_600)
        func failed(_ url: String, _ message: String) -> FeedUpdate {
            FeedUpdate(
                url: url, outcome: .failed(message: message, gone: false), status: 500, movedTo: nil,
                notBefore: nil, now: now)
        }
        let writing = StateSession(try SQLiteStateStore(path: w.state))
        try await Self.record([failed(a1, "before")], fencedBy: nil, on: writing)
        #expect(try await writing.keepMergedFeedID(7) == 7)
        await writing.finish()
        _ = consume writing

        let reading = StateSession(try SQLiteStateStore(path: w.state), access: .readOnly)
        #expect(!reading.writes)
        try await Self.writeEverything(a1: a1, b1: b1, now: now, on: reading)
        #expect(try await reading.keepMergedFeedID(9) == 7, "the id kept, not kept anew")
        let (a, b, records) = try await reading.read { store throws(StateError) in
            (try store.feed(a1), try store.feed(b1), try store.feeds().count)
        }
        #expect(a?.lastError == "before" && a?.consecutiveFailures == 1 && a?.etag == nil)
        #expect(b == nil && records == 1, "nothing recorded, renamed or added")
        #expect(try await reading.read { store throws(StateError) in try store.mergedFeedID() } == 7)
    }

    /// Every write a run can ask for, on `session`.
    static func writeEverything(a1: String, b1: String, now: Timestamp, on session: isolated StateSession) throws {
        let run = session.beginRun()
        try run.record(
            FeedUpdate(
                url: a1, outcome: .failed(message: "during render", gone: false), status: 500, movedTo: nil,
                notBefore: nil, now: now))
        try run.rename(feed: a1, to: b1)
        let committed = run.commit(pending: [
            FeedUpdate(
                url: b1, outcome: .notModified(etag: "\"e\"", lastModified: nil), status: 304, movedTo: nil,
                notBefore: nil, now: now)
        ])
        if case .failure(let error) = committed.unstored { throw error }
        if case .failure(let error) = committed.pendingStored { throw error }
        try committed.forgetValidators(of: [a1])
        try committed.prune(feeds: nil, keepDays: 0, keepPerFeed: 0, now: now)
    }

    /// A host that asked everyone to wait (429 with a Retry-After, twice): at release its listed
    /// feeds outside the claim wait too, found in the worker's packed list in one pass.
    @Test func aHostsWaitHoldsItsListedFeedsOutsideTheClaim() async throws {
        let (a1, a2, a3, b1) = (
            "http://a.example/1.xml", "http://a.example/2.xml", "http://a.example/3.xml", "http://b.example/1.xml"
        )
        var list = PackedSubscriptions()
        for url in [a1, a2, a3, b1] { list.add(Subscription(url: url), read: nil) }
        let session = StateSession(try PostgreSQLStateStore(connecting: await PostgreSQLServer.shared.database()))
        let now = Timestamp(secondsSince1970: 1_706_745_600)
        let wait = Timestamp(secondsSince1970: now.secondsSince1970 + 7_200)
        let claims = try await session.withSharedStore { [list] store throws(StateError) in
            try store.subscribe(Array(list.urls), now: now)
            var request = ClaimRequest(scope: .due, hosts: 10, holder: "w", leaseSeconds: 60, now: now)
            request.feedsPerHost = 2
            return try store.claim(request)
        }
        #expect(claims.map(\.feeds) == [[a1, a2], [b1]], "a3 left for the host's next claim")
        let throttled = [a1, a2].map { url in
            FeedUpdate(
                url: url, outcome: .failed(message: "429 Too Many Requests", gone: false), status: 429, movedTo: nil,
                notBefore: wait, now: now)
        }
        try await Self.record(throttled, fencedBy: HostClaim.leasesByFeed(claims), on: session)
        let state = StateOptions(session: session)
        let checks = try await session.withSharedStore { [list, state] store throws(StateError) in
            _ = try SharedSchedule.release(
                claims, holder: "w", store: store, state: state, now: now, listed: list.urls(onHosts:))
            return try store.feeds([a3, b1]).mapValues(\.record.nextCheck)
        }
        #expect(checks[a3]??.secondsSince1970 ?? 0 >= wait.secondsSince1970, "\(checks)")
        #expect(checks[b1]??.secondsSince1970 ?? .max < wait.secondsSince1970, "another host's feed: \(checks)")
    }

    static func record(
        _ updates: [FeedUpdate], fencedBy leases: [String: HostLease]?, on session: isolated StateSession
    ) throws {
        let run = session.beginRun(fencedBy: leases)
        for update in updates { try run.record(update) }
        let committed = run.commit(pending: [])
        if case .failure(let error) = committed.unstored { throw error }
    }
}
