import FeedFetch
import Foundation
import TestSupport
import Testing

/// A permanent redirect whose new address answers 304 (the copy stored is
/// the one it serves) is a move like one answered 200: said, remembered in
/// the state, and continued when the list names the new address. In a
/// SQLite file and in a PostgreSQL database alike.
@Suite(.serialized) struct MovedNotModifiedTests {
    let server = PlanetServer.state

    func control(_ path: String) async throws {
        _ = try await HTTPClient().fetch(FetchRequest(url: server.url(path)))
    }

    /// Requests, 200s, 304s and body bytes the server counted for a path.
    func stats(_ path: String) async throws -> [Int] {
        let response = try await HTTPClient().fetch(FetchRequest(url: server.url("/stats")))
        let all = try JSONDecoder().decode([String: [Int]].self, from: Data(response.body))
        return all[path] ?? [0, 0, 0, 0]
    }

    func run(_ feed: String, state: String, _ w: StateTests.Workspace) async throws -> CommandRun {
        try await CommandRun.feedmerge([
            server.url("/feed/\(feed)"), "-o", w.path("out.atom"), "--health", w.path("health.json"),
            "--now", "2024-02-01T00:00:00Z", "--state", state, "--fetch-all",
        ])
    }

    func movedTo(_ w: StateTests.Workspace) throws -> String? {
        let data = try Data(contentsOf: URL(fileURLWithPath: w.path("health.json")))
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let feeds = object?["feeds"] as? [[String: Any]] ?? []
        return feeds.first?["moved_to"] as? String
    }

    @Test(arguments: ["sqlite", "postgresql"]) func aMoveAnsweredNotModifiedIsRemembered(store: String) async throws {
        let name = "moved304\(store)"
        let w = try StateTests.Workspace("moved-304-\(store)")
        let state = store == "sqlite" ? w.state : await PostgreSQLServer.shared.database()
        try await control("/set/\(name)/ok")
        #expect(try await run(name, state: state, w).status == 0)
        try await control("/set/\(name)/moved")
        defer { Task { try? await control("/set/\(name)/ok") } }
        let before = try await stats("/feed/\(name)-new")
        let moved = try await run(name, state: state, w)
        #expect(moved.status == 0, "\(moved.standardError)")
        let after = try await stats("/feed/\(name)-new")
        #expect(after[2] == before[2] + 1, "the new address did not answer 304: \(after)")
        let line = "moved: \(server.url("/feed/\(name)")) -> \(server.url("/feed/\(name)-new"))"
        #expect(moved.standardError.contains(line), "\(moved.standardError)")
        #expect(try movedTo(w) == server.url("/feed/\(name)-new"))
        // The list names the new address: the stored feed continues there, its validators too.
        let continued = try await run("\(name)-new", state: state, w)
        #expect(continued.status == 0, "\(continued.standardError)")
        let last = try await stats("/feed/\(name)-new")
        #expect(last[1] == after[1] && last[2] == after[2] + 1, "not asked conditionally: \(last)")
        try await control("/set/\(name)/ok")
    }
}
