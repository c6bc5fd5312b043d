import FeedFetch
import FeedModel
import Foundation
import Subscriptions
import Testing
import TimelineMerge

@testable import Aggregator
@testable import FeedState
@testable import SQLiteState

/// The store's calls never run on Swift's cooperative pool: SQLite's reads
/// and busy timeout, and the writer's back-pressure, block the run's state
/// thread instead, while the pool's few threads fetch and parse.
@Suite(.serialized) struct StateThreadTests {
    /// A SQLite store that notes the thread of every call the run makes.
    final class ThreadNotingStore: StateStore, @unchecked Sendable {
        let inner: SQLiteStateStore
        private let lock = NSLock()
        private var names: [String] = []
        init(path: String) throws { inner = try SQLiteStateStore(path: path) }
        var threads: Set<String> { lock.withLock { Set(names) } }
        private func note(_ call: String) {
            let name = StateThread.isCurrent ? "the state thread" : "another thread (\(call))"
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

    @Test func everyStoreCallRunsOnTheRunsStateThread() async throws {
        let w = try StateTests.Workspace("state-thread")
        var list = SubscriptionList()
        for index in 0..<12 {
            let path = w.path("feed\(index).xml")
            let items = (0..<5).map { "<item><guid>urn:\(index):\($0)</guid><title>t\($0)</title></item>" }.joined()
            try Data("<rss version=\"2.0\"><channel><title>f\(index)</title>\(items)</channel></rss>".utf8)
                .write(to: URL(fileURLWithPath: path))
            list.subscriptions.append(Subscription(url: path, mayReadLocalFile: true))
        }
        var options = StateOptions(store: try ThreadNotingStore(path: w.state))
        options.health = true
        let store = try #require(options.store as? ThreadNotingStore)
        for run in 0..<2 {  // a first run, then one that reads back what the first stored
            let result = await Aggregator.run(
                list, client: HTTPClient(),
                rules: TimelineRules(now: Timestamp(secondsSince1970: 1_706_745_600 + Int64(run))),
                state: options)
            #expect(result.timeline.count == 60 && result.diagnostics.isEmpty, "\(result.diagnostics)")
        }
        #expect(store.threads == ["the state thread"], "the store was called on \(store.threads)")
    }
}
