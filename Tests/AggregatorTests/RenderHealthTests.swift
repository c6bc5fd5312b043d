import FeedFetch
import Foundation
import TestSupport
import Testing

/// `feedmerge render`, which fetches nothing, reports each feed as the run
/// that stored its last outcome reported it: ok with its status and the
/// entries it listed, partial with why, not modified, deferred, failed, gone.
/// In a SQLite file and in PostgreSQL, after one-shot runs and after workers.
@Suite(.serialized) struct RenderHealthTests {
    let server = PlanetServer.state
    static let fields = ["status", "http_status", "entries_in_feed", "error"]

    func control(_ path: String) async throws {
        _ = try await HTTPClient().fetch(FetchRequest(url: server.url(path)))
    }

    /// Each feed's reported fields, by URL.
    func health(_ path: String) throws -> [String: [String: String]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        var result: [String: [String: String]] = [:]
        for feed in object?["feeds"] as? [[String: Any]] ?? [] {
            let url = feed["url"] as? String ?? ""
            result[url] = Dictionary(uniqueKeysWithValues: Self.fields.map { ($0, "\(feed[$0] ?? "-")") })
        }
        return result
    }

    @Test(arguments: ["sqlite", "postgresql"]) func renderReportsEachFeedAsItsLastRunDid(store: String) async throws {
        let w = try StateTests.Workspace("render-health-\(store)")
        let state = store == "sqlite" ? w.state : await PostgreSQLServer.shared.database()
        let names = ["ok", "fail", "retry", "gone"].map { "rh\($0)\(store)" }
        for name in names { try await control("/set/\(name)/ok") }
        try await control("/set/rhfail\(store)/fail")
        try await control("/set/rhretry\(store)/retry")
        defer { Task { for name in names { try? await control("/set/\(name)/ok") } } }
        let feeds = names.map { server.url("/feed/\($0)") } + [server.url("/big")]
        // ok, failed, failed (429), ok, partial; then not modified, failed, deferred, gone (410), partial;
        // then not modified, failed, deferred, gone (known), partial.
        for (step, now) in ["2024-02-01T00:00:00Z", "2024-02-01T00:30:00Z", "2024-02-01T00:40:00Z"].enumerated() {
            if step == 1 { try await control("/set/rhgone\(store)/gone") }
            _ = try await CommandRun.feedmerge(
                feeds + [
                    "-o", w.path("run.atom"), "--health", w.path("run.json"), "--max-bytes", "20000", "--now", now,
                    "--state", state, "-q", "--fetch-all",
                ])
            _ = try await CommandRun.feedmerge(
                ["render"] + feeds + [
                    "-o", w.path("render.atom"), "--health", w.path("render.json"), "--now", now, "--state", state,
                    "-q",
                ])
            let run = try health(w.path("run.json"))
            let rendered = try health(w.path("render.json"))
            #expect(run.count == 5)
            for url in feeds { #expect(rendered[url] == run[url], "step \(step): \(url)") }
            let statuses = feeds.map { run[$0]?["status"] ?? "" }
            let expected = [
                ["ok", "failed", "failed", "ok", "partial"],
                ["not-modified", "failed", "deferred", "gone", "partial"],
                ["not-modified", "failed", "deferred", "gone", "partial"],
            ]
            #expect(statuses == expected[step], "step \(step)")
        }
    }

    /// Workers fetch; render reports what they saw (not "not-modified", HTTP 200, no entries).
    @Test func renderReportsWhatTheWorkersSaw() async throws {
        let w = try StateTests.Workspace("render-health-worker")
        let state = await PostgreSQLServer.shared.database()
        try await control("/set/rhwok/ok")
        try await control("/set/rhwfail/fail")
        defer { Task { try? await control("/set/rhwfail/ok") } }
        let feeds = [server.url("/feed/rhwok"), server.url("/feed/rhwfail"), server.url("/big")]
        let worker = try await CommandRun.feedmerge(
            [
                "worker", "-", "--state", state, "--now", "2024-02-01T00:00:00Z", "--max-bytes", "20000", "--drain",
                "-q",
            ],
            input: Data(feeds.joined(separator: "\n").utf8))
        #expect(worker.status == 0, "\(worker.standardError)")
        _ = try await CommandRun.feedmerge([
            "render", "--state", state, "-o", w.path("render.atom"), "--health", w.path("render.json"),
            "--now", "2024-02-01T00:10:00Z", "-q",
        ])
        let rendered = try health(w.path("render.json"))
        #expect(
            rendered[feeds[0]] == ["status": "ok", "http_status": "200", "entries_in_feed": "4", "error": "-"],
            "\(rendered)")
        #expect(rendered[feeds[1]]?["status"] == "failed" && rendered[feeds[1]]?["error"] == "HTTP 500")
        #expect(rendered[feeds[2]]?["status"] == "partial" && rendered[feeds[2]]?["entries_in_feed"] == "59")
    }
}
