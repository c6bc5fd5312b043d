import FeedFetch
import FeedModel
import FeedState
import Foundation
import SQLiteState
import TestSupport
import Testing

@testable import PostgreSQLState

/// A URL of any length in a list costs only its own feed: a worker, a
/// one-shot run on PostgreSQL and one on a SQLite file fetch and store every
/// other feed (served from a real server on 127.0.0.1) and the 4,000-byte
/// one, and report the one too long to fetch as failing, with why. (A B-tree over `url` refused an entry past about
/// 2,700 bytes, and one such URL failed the batch, the claim and the worker.)
@Suite(.serialized, .tags(.slow), .fullTier) struct LongURLTests {
    let server = PostgreSQLServer.shared
    static let hosts = LocalServer.start(
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Server/hosts_server.py"))
    static let now = "2024-02-01T00:00:00Z"

    /// A URL on the hosts server of exactly `bytes` bytes, padded with random hex (which compresses badly).
    static func longURL(bytes: Int, feed: Int) -> String {
        var url = "http://127.0.0.1:\(hosts.ports[1])/f/\(feed).xml?pad="
        while url.utf8.count < bytes { url += UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased() }
        return String(url.prefix(bytes))
    }

    /// 20 feeds on 4 hosts, with a 4,000-byte and a 100,000-byte URL among them.
    func list(_ w: StateTests.Workspace) throws -> (path: String, long: [String]) {
        let long = [Self.longURL(bytes: 4_000, feed: 900), Self.longURL(bytes: 100_000, feed: 901)]
        var urls = (0..<20).map { "http://127.0.0.1:\(Self.hosts.ports[1 + $0 % 4])/f/\($0).xml" }
        urls.insert(long[0], at: 5)
        urls.insert(long[1], at: 12)
        let outlines = urls.map { "<outline type=\"rss\" xmlUrl=\"\($0)\"/>" }.joined(separator: "\n")
        let opml = "<opml version=\"2.0\"><head><title>L</title></head><body>\n\(outlines)\n</body></opml>\n"
        try opml.write(toFile: w.path("feeds.opml"), atomically: true, encoding: .utf8)
        return (w.path("feeds.opml"), long)
    }

    /// The health report's feeds by URL.
    func health(_ path: String) throws -> [String: [String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        let feeds = (object as? [String: Any])?["feeds"] as? [[String: Any]] ?? []
        return Dictionary(feeds.map { ($0["url"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// Every feed fetched but `long[1]` (100,000 bytes), which fails with why.
    func expectEveryOtherFeedFetchedAndTheLongOnesFailing(_ report: [String: [String: Any]], long: [String]) {
        #expect(report.count == 22)
        for (url, feed) in report where url != long[1] {
            // "ok" when this run fetched it, "not-modified" when `render` shows a worker's fetch.
            #expect(["ok", "not-modified"].contains(feed["status"] as? String ?? ""), "\(url): \(feed)")
            #expect(feed["last_success"] != nil && feed["error"] == nil, "\(url): \(feed)")
        }
        for url in [long[1]] {
            let feed = report[url] ?? [:]
            #expect(feed["status"] as? String == "failed", "\(url.utf8.count) bytes: \(feed)")
            let error = (feed["error"] as? String ?? "") + (feed["last_error"] as? String ?? "")
            #expect(error.contains("bytes long"), "\(url.utf8.count) bytes: \(feed)")
        }
    }

    func items(_ path: String) throws -> Int {
        let feed = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        return ((feed as? [String: Any])?["items"] as? [Any])?.count ?? -1
    }

    @Test func aWorkerFetchesEveryOtherFeedAndRecordsTheLongOnesFailing() async throws {
        let w = try StateTests.Workspace("long-worker")
        let state = await server.database()
        let (list, long) = try list(w)
        let worker = try await CommandRun.feedmerge(["worker", list, "--state", state, "--now", Self.now, "--drain"])
        #expect(worker.status == 0, "\(worker.standardError)")
        #expect(worker.standardError.contains(": 21 fetched, 0 not modified, 1 failed"), "\(worker.standardError)")
        #expect(
            try await PostgreSQLServer.psql(state, "SELECT count(*) FROM feeds WHERE last_success IS NOT NULL") == "21")
        #expect(try await PostgreSQLServer.psql(state, "SELECT max(octet_length(url)) FROM feeds") == "100000")
        let render = try await CommandRun.feedmerge([
            "render", list, "--state", state, "--now", Self.now, "--limit", "0", "-o", w.path("out.json"),
            "--health", w.path("health.json"), "-q",
        ])
        #expect(render.status == 1, "\(render.standardError)")
        #expect(try items(w.path("out.json")) == 63, "three entries of each of the 21 other feeds")
        expectEveryOtherFeedFetchedAndTheLongOnesFailing(try health(w.path("health.json")), long: long)
    }

    @Test(arguments: ["postgresql", "sqlite"])
    func aOneShotRunFetchesEveryOtherFeedAndReportsTheLongOnesFailing(store: String) async throws {
        let w = try StateTests.Workspace("long-oneshot-\(store)")
        let state = store == "sqlite" ? w.path("state.sqlite") : await server.database()
        let (list, long) = try list(w)
        for run in 1...2 {
            let result = try await CommandRun.feedmerge([
                list, "--state", state, "--now", Self.now, "--limit", "0", "-o", w.path("out.json"),
                "--health", w.path("health.json"), "-q", "--fetch-all",  // the second run asks again
            ])
            #expect(result.status == 1, "run \(run): \(result.standardError)")
            #expect(!result.standardError.contains("state:"), "run \(run): \(result.standardError)")
            #expect(try items(w.path("out.json")) == 63, "run \(run)")
            let report = try health(w.path("health.json"))
            expectEveryOtherFeedFetchedAndTheLongOnesFailing(report, long: long)
            if run == 2 {
                #expect(report[long[1]]?["consecutive_failures"] as? Int == 2, "the state keeps it")
            }
        }
    }

    /// The store itself: a batch holding outcomes of overlong URLs, among
    /// others, is stored whole; a rename to one, and subscribing one, work.
    @Test(arguments: ["postgresql", "sqlite"])
    func aStoreKeepsOutcomesOfURLsOfAnyLength(store kind: String) async throws {
        let w = try StateTests.Workspace("long-store-\(kind)")
        let long = [Self.longURL(bytes: 4_000, feed: 1), Self.longURL(bytes: 100_000, feed: 2)]
        let urls = ["http://a.example/1", long[0], "http://a.example/2", long[1], "http://a.example/3"]
        let now = Timestamp(secondsSince1970: 1_706_745_600)
        func open() async throws -> any StateStore {
            kind == "sqlite"
                ? try SQLiteStateStore(path: w.path("state.sqlite"))
                : try await PostgreSQLStateStore(connecting: server.database())
        }
        let store = try await open()
        for url in urls {
            try store.record(
                FeedUpdate(
                    url: url, outcome: .failed(message: "HTTP 500", gone: false), status: 500, movedTo: nil,
                    notBefore: nil, now: now))
        }
        #expect(try store.commit().isEmpty)
        let renamed = Self.longURL(bytes: 5_000, feed: 3)
        try store.rename(feed: long[1], to: renamed)
        let feeds = try store.feeds()
        #expect(Set(feeds.keys) == Set(urls.filter { $0 != long[1] } + [renamed]))
        #expect(feeds[long[0]]?.lastError == "HTTP 500")
        if let shared = store as? PostgreSQLStateStore {
            let refused = try shared.subscribe(urls + [Self.longURL(bytes: 200_000, feed: 4)], now: now)
            #expect(refused.isEmpty, "\(refused)")
        }
    }
}

/// A PostgreSQL state made by an older feedmerge (schema version 2: a
/// B-tree over `url`, hosts keyed by the URL's text) keeps working:
/// opening it migrates it, its hosts are keyed canonically, its leases
/// still count, and URLs of any length can then be stored.
@Suite struct HostKeyMigrationTests {
    let server = PostgreSQLServer.shared

    @Test func aVersion2StateIsMigratedToCanonicalHostsAndLengthSafeKeys() async throws {
        let state = await server.database()
        var sql = PostgreSQLSchema.migrations.prefix(2).map(\.sql).joined(separator: ";\n")
        sql += """
            ;
            CREATE TABLE IF NOT EXISTS meta(name text PRIMARY KEY, value bigint NOT NULL);
            INSERT INTO meta VALUES ('schema_version', 2);
            INSERT INTO feeds(url, first_seen, next_check, listed_at) VALUES
                ('http://Example.ORG:80/a', 1, 0, 1), ('http://example.org./b', 1, 0, 1),
                ('http://127.1:8080/c', 1, 0, 1), ('http://2130706433:8080/d', 1, 0, 1),
                ('http://[0:0::1]/e', 1, 0, 1), ('http://other.example/f', 1, 0, 1);
            INSERT INTO hosts(host) SELECT DISTINCT host FROM feeds;
            """
        try await PostgreSQLServer.psql(state, sql)
        #expect(try await PostgreSQLServer.psql(state, "SELECT count(DISTINCT host) FROM feeds") == "6")
        let store = try PostgreSQLStateStore(connecting: state)
        #expect(try await PostgreSQLServer.psql(state, "SELECT value FROM meta WHERE name = 'schema_version'") == "6")
        let hosts = try await PostgreSQLServer.psql(
            state, "SELECT host FROM feeds GROUP BY host ORDER BY host COLLATE \"C\"")
        #expect(hosts.split(separator: "\n") == ["127.0.0.1:8080", "[::1]", "example.org", "other.example"])
        let leases = try await PostgreSQLServer.psql(state, "SELECT host FROM hosts ORDER BY host COLLATE \"C\"")
        #expect(leases.split(separator: "\n") == ["127.0.0.1:8080", "[::1]", "example.org", "other.example"])
        // One claim takes each canonical host once, with all its feeds.
        let claims = try store.claim(
            ClaimRequest(
                scope: .due, hosts: 10, holder: "t", leaseSeconds: 60, now: Timestamp(secondsSince1970: 100)))
        let feeds = Dictionary(uniqueKeysWithValues: claims.map { ($0.lease.host, $0.feeds.count) })
        #expect(feeds == ["127.0.0.1:8080": 2, "[::1]": 1, "example.org": 2, "other.example": 1])
        // A feed subscribed under another spelling of a claimed host is on that host.
        _ = try store.subscribe(
            ["http://LOCALHOST:8080/g", "http://0x7f.1:8080/h"], now: Timestamp(secondsSince1970: 100))
        #expect(
            try await PostgreSQLServer.psql(state, "SELECT count(*) FROM feeds WHERE host = '127.0.0.1:8080'") == "4")
        let long = "http://example.org/" + String(repeating: "x", count: 3_000) + UUID().uuidString
        #expect(try store.subscribe([long], now: Timestamp(secondsSince1970: 100)).isEmpty)
    }
}
