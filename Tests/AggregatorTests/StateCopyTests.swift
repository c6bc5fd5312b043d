import FeedFetch
import Foundation
import TestSupport
import Testing

/// `feedmerge state copy`: a planet's state moved from SQLite to PostgreSQL
/// and back keeps its whole history: a run on each copy gives the same
/// bytes as a run on the original (first-seen dates, validators: the
/// server's 304s, retention's last pass).
@Suite(.serialized) struct StateCopyTests {
    let server = PlanetServer.state

    func control(_ path: String) async throws {
        _ = try await HTTPClient().fetch(FetchRequest(url: server.url(path)))
    }

    func run(_ state: String, _ w: StateTests.Workspace, folder: String, now: String) async throws -> CommandRun {
        try FileManager.default.createDirectory(atPath: w.path(folder), withIntermediateDirectories: true)
        return try await CommandRun.feedmerge(
            ["rsscopy", "atomcopy", "jsoncopy"].map { server.url("/feed/\($0)") } + [
                "-o", w.path("\(folder)/out.atom"), "-o", w.path("\(folder)/out.json"), "--health",
                w.path("\(folder)/health.json"), "--now", now, "--state", state, "--link", "http://planet.example/",
                "-q",
            ])
    }

    /// The outputs (the health report without which machine fetched each
    /// feed, which only a shared state says).
    func bytes(_ w: StateTests.Workspace, _ folder: String) throws -> [Data] {
        try ["out.atom", "out.json", "health.json"].map {
            let data = try Data(contentsOf: URL(fileURLWithPath: w.path("\(folder)/\($0)")))
            guard $0 == "health.json" else { return data }
            return Data(
                String(decoding: data, as: UTF8.self).replacingOccurrences(
                    of: #","fetched_by":"[^"]*""#, with: "", options: .regularExpression
                ).utf8)
        }
    }

    @Test func aStateCopiedToPostgreSQLAndBackGivesTheSameRuns() async throws {
        let w = try StateTests.Workspace("state-copy")
        let original = w.path("original.sqlite")
        // Two runs a day apart: entries first seen on two days, validators stored.
        #expect(try await run(original, w, folder: "a", now: "2024-03-01T00:00:00Z").status == 0)
        try await control("/set/rsscopy/drop")
        #expect(try await run(original, w, folder: "a", now: "2024-03-02T00:00:00Z").status == 0)

        let postgreSQL = await PostgreSQLServer.shared.database()
        let there = try await CommandRun.feedmerge(["state", "copy", original, postgreSQL])
        #expect(there.status == 0, "\(there.standardError)")
        #expect(there.standardError.contains("copied 3 feeds"), "\(there.standardError)")
        let back = w.path("back.sqlite")
        let backAgain = try await CommandRun.feedmerge(["state", "copy", postgreSQL, back])
        #expect(backAgain.status == 0, "\(backAgain.standardError)")

        // The same third run on the original and on both copies.
        var written: [[Data]] = []
        for (folder, state) in [("original", original), ("postgresql", postgreSQL), ("back", back)] {
            let result = try await run(state, w, folder: folder, now: "2024-03-03T00:00:00Z")
            #expect(result.status == 0, "\(folder): \(result.standardError)")
            written.append(try bytes(w, folder))
        }
        #expect(written[0] == written[1], "the PostgreSQL copy runs differently")
        #expect(written[0] == written[2], "the copy copied back runs differently")
        // The validators came along: the third run's feeds were all answered 304.
        let health = String(decoding: written[1][2], as: UTF8.self)
        #expect(health.components(separatedBy: "\"http_status\":304").count - 1 == 3, "\(health)")
        try await control("/set/rsscopy/ok")
    }

    @Test func aCopyIntoAStateThatHoldsFeedsIsRefused() async throws {
        let w = try StateTests.Workspace("state-copy-refused")
        #expect(try await run(w.state, w, folder: "a", now: "2024-03-01T00:00:00Z").status == 0)
        let postgreSQL = await PostgreSQLServer.shared.database()
        #expect(try await CommandRun.feedmerge(["state", "copy", w.state, postgreSQL]).status == 0)
        let again = try await CommandRun.feedmerge(["state", "copy", w.state, postgreSQL])
        #expect(again.status == 74, "\(again.standardError)")
        #expect(again.standardError.contains("holds feeds already"), "\(again.standardError)")
        let usage = try await CommandRun.feedmerge(["state", "move", w.state, postgreSQL])
        #expect(usage.status == 2 && usage.standardError.contains("unknown subcommand move"), "\(usage.standardError)")
    }
}
