import FeedFetch
import FeedModel
import FeedParse
import FeedState
import Foundation
import SQLiteState
import Testing

/// Runs that remember: a SQLite state in a temporary folder, feeds on
/// 127.0.0.1 that change between runs, and a server that counts requests.
@Suite(.serialized) struct StateTests {
    let server = PlanetServer.state

    final class Workspace {
        let folder: URL
        init(_ name: String) throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "feedmerge-state-\(getpid())-\(name)")
            try? FileManager.default.removeItem(at: folder)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: folder) }
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        var state: String { path("state.sqlite") }
    }

    func control(_ path: String) async throws {
        _ = try await HTTPClient().fetch(FetchRequest(url: server.url(path)))
    }

    /// Requests, 200s, 304s and body bytes the server counted for a path.
    func stats(_ path: String) async throws -> [Int] {
        let response = try await HTTPClient().fetch(FetchRequest(url: server.url("/stats")))
        let all = try JSONDecoder().decode([String: [Int]].self, from: Data(response.body))
        return all[path] ?? [0, 0, 0, 0]
    }

    @discardableResult
    func run(_ feeds: [String], _ workspace: Workspace, now: String = "2024-02-01T00:00:00Z", extra: [String] = [])
        async
        throws
        -> CommandRun
    {
        try await CommandRun.feedmerge(
            feeds.map { server.url("/feed/\($0)") } + [
                "-o", workspace.path("out.atom"), "--now", now, "--state", workspace.state,
                "--health", workspace.path("health.json"),
                // Each run asks every feed again: these tests are about what a fetch does to the state.
                "--fetch-all",
            ] + extra)
    }

    func entries(_ workspace: Workspace) throws -> [Entry] {
        try FeedParser.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: workspace.path("out.atom"))))).entries
    }

    func health(_ workspace: Workspace) throws -> [[String: Any]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: workspace.path("health.json")))
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return object?["feeds"] as? [[String: Any]] ?? []
    }

    @Test func secondRunIsConditionalAndByteIdentical() async throws {
        let w = try Workspace("conditional")
        try await run(["c1", "c2"], w)
        let first = try Data(contentsOf: URL(fileURLWithPath: w.path("out.atom")))
        let before = try await stats("/feed/c1")
        let second = try await run(["c1", "c2"], w)
        #expect(second.status == 0, "\(second.standardError)")
        let after = try await stats("/feed/c1")
        #expect(after[0] == before[0] + 1)
        #expect(after[2] == before[2] + 1, "the second request was not answered 304")
        #expect(after[3] == before[3], "a body was sent again")
        #expect(try Data(contentsOf: URL(fileURLWithPath: w.path("out.atom"))) == first)
    }

    @Test func failingFeedKeepsItsEntriesAndShowsInHealth() async throws {
        let w = try Workspace("failing")
        try await run(["f1"], w)
        let count = try entries(w).count
        try await control("/set/f1/fail")
        let failing = try await run(["f1"], w)
        #expect(failing.status == 1)
        #expect(try entries(w).count == count)
        let report = try #require(try health(w).first)
        #expect(report["status"] as? String == "failed")
        #expect(report["http_status"] as? Int == 500)
        #expect(report["consecutive_failures"] as? Int == 1)
        #expect(report["entries_stored"] as? Int == count)
        // When the schedule asks again: a first failure waits an hour, then up to as long again.
        #expect(report["last_fetch"] as? String == "2024-02-01T00:00:00Z")
        let next = try #require(report["next_check"] as? String)
        #expect(next >= "2024-02-01T01:00:00Z" && next < "2024-02-01T02:00:00Z", "\(next)")
        #expect(report["next_check_reason"] as? String == "backoff")
    }

    @Test func droppedEntryStaysUntilRetention() async throws {
        let w = try Workspace("dropped")
        try await run(["d1"], w)
        try await control("/set/d1/drop")
        try await run(["d1"], w, now: "2024-02-02T00:00:00Z")
        #expect(try entries(w).contains { $0.id == "urn:d1:2" })
        // 91 days later, past the default 90-day retention, it is gone
        try await run(["d1"], w, now: "2024-05-03T00:00:00Z")
        try await run(["d1"], w, now: "2024-05-04T00:00:00Z")
        #expect(try !entries(w).contains { $0.id == "urn:d1:2" })
    }

    @Test func undatedEntryKeepsItsFirstSeenDate() async throws {
        let w = try Workspace("undated")
        var dates: [Timestamp?] = []
        for day in ["2024-03-01", "2024-03-05", "2024-03-09"] {
            try await run(["u1"], w, now: "\(day)T12:00:00Z", extra: ["--force"])
            dates.append(try entries(w).first { $0.id == "urn:u1:undated" }?.published)
        }
        #expect(dates.allSatisfy { $0 != nil && $0 == dates[0] }, "\(dates)")
        #expect(dates[0]?.rfc3339 == "2024-03-01T12:00:00Z")
    }

    @Test func restampingFeedKeepsStableDates() async throws {
        let w = try Workspace("restamp")
        try await control("/set/r1/restamp")
        var dates: [[String: Timestamp]] = []
        // The server stamps entries with its own clock; the run's time is later
        // still, so the dates are not future dates (which would be clamped anyway).
        for second in 0..<3 {
            try await run(["r1"], w, now: "2035-03-01T12:00:0\(second)Z", extra: ["--force"])
            dates.append(
                Dictionary(
                    uniqueKeysWithValues: try entries(w).compactMap { e in e.published.map { (e.id ?? "", $0) } }))
            try await Task.sleep(for: .milliseconds(1100))
        }
        #expect(dates[0].count == 4)
        #expect(dates[0] == dates[1] && dates[1] == dates[2], "dates moved: \(dates)")
    }

    @Test func permanentRedirectMovesTheStoredURLTemporaryDoesNot() async throws {
        let w = try Workspace("redirects")
        try await control("/set/m1/moved")
        try await control("/set/m2/temp")
        try await run(["m1", "m2"], w)
        try await run(["m1", "m2"], w, now: "2024-02-02T00:00:00Z", extra: ["--force"])
        #expect(try await stats("/feed/m1")[0] == 1, "the moved feed was requested at its old URL again")
        #expect(try await stats("/feed/m2")[0] == 2, "a temporary redirect was remembered")
        let moved = try health(w).first { ($0["url"] as? String)?.hasSuffix("/feed/m1") == true }
        #expect((moved?["moved_to"] as? String)?.hasSuffix("/feed/m1-new") == true)
    }

    @Test func updateOPMLWritesPermanentMovesBackAndNothingElse() async throws {
        let w = try Workspace("opml")
        try await control("/set/o1/moved")
        try await control("/set/o2/temp")
        let original = """
            <?xml version="1.0"?>
            <!-- hand-written; keep this comment -->
            <opml version="2.0"><head><title>Mine</title></head><body>
              <outline text="Folder">
                <outline text="moved" xmlUrl="\(server.url("/feed/o1"))"/>
                <outline text="temporary" xmlUrl='\(server.url("/feed/o2"))'/>
              </outline>
            </body></opml>

            """
        let opml = w.path("list.opml")
        try Data(original.utf8).write(to: URL(fileURLWithPath: opml))
        let result = try await CommandRun.feedmerge([opml, "-o", w.path("out.atom"), "--no-state", "--update-opml"])
        #expect(result.status == 0, "\(result.standardError)")
        let updated = try String(contentsOfFile: opml, encoding: .utf8)
        #expect(
            updated == original.replacingOccurrences(of: server.url("/feed/o1\""), with: server.url("/feed/o1-new\"")))
    }

    /// After `--update-opml` writes a 301 back, the feed's state continues
    /// under its new URL: its undated entry keeps the date it was first
    /// seen (not dated anew, as a new feed's would be).
    @Test func aMovedFeedKeepsItsHistoryUnderItsNewURL() async throws {
        let w = try Workspace("moved-history")
        try await control("/set/mh1/moved")
        defer { Task { try? await control("/set/mh1/ok") } }
        let opml = w.path("list.opml")
        try Data(
            #"<opml version="2.0"><head><title>t</title></head><body><outline text="m" xmlUrl="\#(server.url("/feed/mh1"))"/></body></opml>"#
                .utf8
        ).write(to: URL(fileURLWithPath: opml))
        func undatedEntryDate(_ now: String) async throws -> String? {
            let result = try await CommandRun.feedmerge([
                opml, "-o", w.path("out.json"), "--state", w.state, "--now", now, "--update-opml", "-q",
            ])
            #expect(result.status == 0, "\(result.standardError)")
            let object = try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: w.path("out.json"))))
            let items = (object as? [String: Any])?["items"] as? [[String: Any]] ?? []
            return items.first { ($0["title"] as? String)?.hasSuffix("undated") == true }?["date_published"] as? String
        }
        let first = try await undatedEntryDate("2024-02-01T00:00:00Z")
        #expect(try String(contentsOfFile: opml, encoding: .utf8).contains("/feed/mh1-new"))
        let second = try await undatedEntryDate("2024-02-05T00:00:00Z")
        #expect(first == "2024-02-01T00:00:00Z" && second == first, "\(first ?? "-") then \(second ?? "-")")
        let feeds = try SQLiteStateStore(path: w.state).feeds().keys.sorted()
        #expect(feeds.count == 1 && feeds[0].hasSuffix("/feed/mh1-new"), "\(feeds)")
    }

    /// Id-less entries that all link to the feed's home page are different
    /// entries with a state too (the state kept them under one key: one
    /// entry survived, and its date changed on the next run).
    @Test func idLessEntriesSharingALinkAreEachStored() async throws {
        let w = try Workspace("shared-link")
        let items = (1...5).map { k in
            "<item><title>Episode \(k)</title><link>http://show.example/</link>"
                + "<pubDate>Mon, 0\(k) Jan 2024 10:00:00 GMT</pubDate></item>"
        }
        let feed = w.path("show.rss")
        try Data(
            (#"<rss version="2.0"><channel><title>Show</title><link>http://show.example/</link>"#
                + items.joined() + "</channel></rss>").utf8
        ).write(to: URL(fileURLWithPath: feed))
        var outputs: [Data] = []
        for _ in 0..<2 {
            let result = try await CommandRun.feedmerge([
                feed, "-o", w.path("out.json"), "--state", w.state, "--now", "2024-02-01T00:00:00Z", "-q",
            ])
            #expect(result.status == 0, "\(result.standardError)")
            outputs.append(try Data(contentsOf: URL(fileURLWithPath: w.path("out.json"))))
        }
        let object = try JSONSerialization.jsonObject(with: outputs[0]) as? [String: Any]
        #expect((object?["items"] as? [Any])?.count == 5)
        #expect(outputs[0] == outputs[1])
    }

    @Test func retryAfterIsHonouredAndGoneIsNotFetchedAgain() async throws {
        let w = try Workspace("polite")
        try await control("/set/p1/retry")
        try await control("/set/p2/gone")
        try await run(["p1", "p2"], w)
        try await run(["p1", "p2"], w, now: "2024-02-01T00:10:00Z")
        #expect(try await stats("/feed/p1")[0] == 1, "fetched again before its Retry-After")
        #expect(try await stats("/feed/p2")[0] == 1, "a gone feed was fetched again")
        let statuses = try health(w).compactMap { $0["status"] as? String }
        #expect(statuses.sorted() == ["deferred", "gone"])
        try await run(["p1", "p2"], w, now: "2024-02-01T00:20:00Z", extra: ["--force"])
        #expect(try await stats("/feed/p2")[0] == 2, "--force did not retry")
    }

    @Test func newFeedBacklogDoesNotFloodTheTop() async throws {
        let w = try Workspace("backlog")
        try await control("/set/b1/backlog")
        let now = "2024-04-01T00:00:00Z"
        try await run(["b1"], w, now: now, extra: ["--new-feed-items", "3"])
        let first = try entries(w)
        #expect(first.count == 12)
        #expect(first.prefix(3).allSatisfy { $0.published?.rfc3339 == now })
        #expect(
            first.dropFirst(3).allSatisfy { ($0.published?.rfc3339 ?? now) < "2024-01-03" }, "the backlog dates as news"
        )
        try await run(["b1"], w, now: "2024-04-02T00:00:00Z", extra: ["--new-feed-items", "3", "--force"])
        #expect(try entries(w).map(\.published) == first.map(\.published), "backlog dates moved between runs")
    }

    @Test func editedEntryIsUpdatedInPlace() async throws {
        let w = try Workspace("edited")
        try await run(["e1"], w)
        try await control("/set/e1/edit")
        try await run(["e1"], w, now: "2024-02-02T00:00:00Z")
        let matching = try entries(w).filter { $0.id == "urn:e1:1" }
        #expect(matching.count == 1)
        #expect(matching.first?.title?.value == "e1 entry 1 (edited)")
    }

    @Test func secondRunWhileTheLockIsHeldExitsSeventyFiveAndTouchesNothing() async throws {
        let w = try Workspace("lock")
        try Data("previous".utf8).write(to: URL(fileURLWithPath: w.path("out.atom")))
        let lock = try StateLock(statePath: w.state)
        let blocked = try await run(["l1"], w)
        #expect(blocked.status == 75)
        #expect(try Data(contentsOf: URL(fileURLWithPath: w.path("out.atom"))) == Data("previous".utf8))
        #expect(!FileManager.default.fileExists(atPath: w.state))
        withExtendedLifetime(lock) {}
    }
}
