import FeedFetch
import FeedModel
import FeedState
import Foundation
import PostgreSQLState
import SQLiteState
import Subscriptions
import TestSupport
import Testing
import TimelineMerge

@testable import Aggregator

/// The SQLite store, the PostgreSQL store and the memory store hold the
/// same facts: the same run sequence (new feed with a backlog, dropped,
/// edited and restamped entries, a failing feed served from the state,
/// retention) gives the same timeline and the same reports through each.
@Suite struct StoreEquivalenceTests {
    static let day: Int64 = 86_400
    static let start: Int64 = 1_700_000_000

    static func item(_ id: String, _ date: Int64?, title: String? = nil) -> String {
        let pubDate = date.map { "<pubDate>\(Timestamp(secondsSince1970: $0).rfc822)</pubDate>" } ?? ""
        return "<item><guid>urn:\(id)</guid><title>\(title ?? id)</title>\(pubDate)</item>"
    }

    static func rss(_ items: [String]) -> String {
        "<rss version=\"2.0\"><channel><title>t</title><link>http://x.example/</link>"
            + items.joined() + "</channel></rss>"
    }

    /// Per run: feed A's and feed B's documents (nil: the file is missing, the fetch fails).
    static func documents(run: Int, now: Int64) -> (String?, String?) {
        // B stamps its entries with the fetch time, every time.
        let b = rss((1...3).map { item("b\($0)", now - 30) })
        switch run {
        case 0:
            let undated = (1...6).map { item("a-undated\($0)", nil) }
            return (
                rss(
                    [item("a1", start - day), item("dup", start - 2 * day), item("future", now + day)] + undated
                        + [item("dup", start - 3 * day, title: "dup, listed again")]), b
            )
        case 1:
            return (
                rss([item("a1", start - day, title: "a1 edited"), item("a-new", nil), item("future", now + day)]), b
            )
        case 2: return (nil, b)
        default: return (rss([item("a-late", now - day)]), b)
        }
    }

    func runs(store: sending any StateStore, limit: Int?, folder: URL) async throws -> [([MergedEntry], [String])] {
        let a = folder.appendingPathComponent("a.xml").path
        let b = folder.appendingPathComponent("b.xml").path
        var list = SubscriptionList()
        list.subscriptions = [
            Subscription(url: a, mayReadLocalFile: true), Subscription(url: b, mayReadLocalFile: true),
        ]
        var results: [([MergedEntry], [String])] = []
        let session = StateSession(store)
        for (run, offset) in [0, 1, 2, 100, 101].enumerated() {
            let now = Self.start + Int64(offset) * Self.day
            let (docA, docB) = Self.documents(run: run, now: now)
            try? FileManager.default.removeItem(atPath: a)
            if let docA { try Data(docA.utf8).write(to: URL(fileURLWithPath: a)) }
            if let docB { try Data(docB.utf8).write(to: URL(fileURLWithPath: b)) }
            var rules = TimelineRules(now: Timestamp(secondsSince1970: now))
            rules.limit = limit
            var state = StateOptions(session: session)
            state.health = true
            state.newFeedItems = 3
            let result = await Aggregator.run(list, client: HTTPClient(), rules: rules, state: state)
            #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
            let reports = result.reports.map {
                "\($0.status) kept \($0.entriesKept) stored \($0.entriesStored ?? -1) newest \($0.newestEntry?.rfc3339 ?? "-") "
                    + "restamping \($0.record?.restamping ?? false) notices \($0.notices)"
            }
            results.append((result.timeline.entries, reports))
        }
        return results
    }

    @Test(arguments: [nil, 5]) func sqlitePostgreSQLAndMemoryStoresGiveTheSameRuns(limit: Int?) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "feedmerge-stores-\(getpid())-\(limit ?? 0)")
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sqlite = try SQLiteStateStore(path: folder.appendingPathComponent("state.sqlite").path)
        let viaSQLite = try await runs(store: sqlite, limit: limit, folder: folder)
        let viaMemory = try await runs(store: MemoryStateStore(), limit: limit, folder: folder)
        let postgreSQL = try await PostgreSQLStateStore(connecting: PostgreSQLServer.shared.database())
        let viaPostgreSQL = try await runs(store: postgreSQL, limit: limit, folder: folder)
        for (run, (left, right)) in zip(viaSQLite, viaMemory).enumerated() {
            #expect(left.1 == right.1, "run \(run): reports differ")
            #expect(left.0 == right.0, "run \(run): timelines differ")
        }
        for (run, (left, right)) in zip(viaPostgreSQL, viaMemory).enumerated() {
            #expect(left.1 == right.1, "run \(run): PostgreSQL's reports differ")
            #expect(left.0 == right.0, "run \(run): PostgreSQL's timelines differ")
        }
        // The sequence did what it is meant to exercise.
        #expect(viaSQLite[1].1[1].contains("restamping true"), "\(viaSQLite[1].1)")
        #expect(viaSQLite[2].1[0].hasPrefix("failed"))
        if limit == nil {
            let first = viaSQLite[0].0
            #expect(
                first.contains {
                    $0.entry.id == "urn:a-undated6" && $0.date.secondsSince1970 < Self.start - 89 * Self.day
                })
            #expect(viaSQLite[2].0.contains { $0.entry.title?.value == "a1 edited" })
            #expect(viaSQLite[3].0.contains { $0.entry.id == "urn:a1" })
            #expect(!viaSQLite[4].0.contains { $0.entry.id == "urn:a1" }, "not pruned after 100 days")
        }
    }
}
