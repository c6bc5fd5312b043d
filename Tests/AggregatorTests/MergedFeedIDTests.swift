import FeedFetch
import Foundation
import TestSupport
import Testing

/// The merged feed's id stays when the list changes: `--id`, else what names
/// the planet (`--self-url`, the home page link), else the id the state kept
/// from its first run, in a SQLite file and in PostgreSQL alike, through
/// `feedmerge state copy`, and from `feedmerge render` of a state workers fed.
@Suite(.serialized) struct MergedFeedIDTests {
    let server = PlanetServer.state
    static let now = "2024-02-01T00:00:00Z"

    func feeds(_ names: [String]) -> [String] { names.map { server.url("/feed/\($0)") } }

    /// The Atom `id` and the JSON Feed's `_feedmerge.id` of a run's outputs.
    func ids(_ arguments: [String], _ w: StateTests.Workspace) async throws -> (atom: String, json: String) {
        let run = try await CommandRun.feedmerge(
            arguments + ["-o", w.path("out.atom"), "-o", w.path("out.json"), "--now", Self.now, "-q"])
        #expect(run.status == 0, "\(arguments): \(run.standardError)")
        let atom = try String(contentsOfFile: w.path("out.atom"), encoding: .utf8)
        let start = try #require(atom.range(of: "<id>"))
        let end = try #require(atom.range(of: "</id>", range: start.upperBound..<atom.endIndex))
        let data = try Data(contentsOf: URL(fileURLWithPath: w.path("out.json")))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let extensionObject = json["_feedmerge"] as? [String: Any]
        return (String(atom[start.upperBound..<end.lowerBound]), extensionObject?["id"] as? String ?? "")
    }

    @Test(arguments: ["sqlite", "postgresql"]) func theStateKeepsTheFirstID(store: String) async throws {
        let w = try StateTests.Workspace("merged-id-\(store)")
        let state = store == "sqlite" ? w.state : await PostgreSQLServer.shared.database()
        let first = try await ids(feeds(["ida", "idb"]) + ["--state", state], w)
        #expect(first.atom.hasPrefix("urn:feedmerge:") && first.json == first.atom, "\(first)")
        // Reordered, one more, one fewer: the same feed.
        for names in [["idb", "ida"], ["idb", "ida", "idc"], ["idc"]] {
            #expect(try await ids(feeds(names) + ["--state", state], w) == first, "\(names)")
        }
        // What names the planet wins over the kept id.
        #expect(
            try await ids(feeds(["idb"]) + ["--state", state, "--self-url", "https://p.example/atom.xml"], w).atom
                == "https://p.example/atom.xml")
        #expect(
            try await ids(feeds(["idb"]) + ["--state", state, "--link", "https://p.example/"], w).atom
                == "https://p.example/")
        #expect(
            try await ids(feeds(["idb"]) + ["--state", state, "--id", "tag:p.example,2024:all"], w).atom
                == "tag:p.example,2024:all")
        // Without a state, the run's own sources give it.
        #expect(try await ids(feeds(["ida", "idb"]) + ["--no-state"], w) == first)
        #expect(try await ids(feeds(["idb", "ida"]) + ["--no-state"], w) != first)
        // A copy of the state keeps it.
        let copy = store == "sqlite" ? await PostgreSQLServer.shared.database() : w.path("copy.sqlite")
        let copied = try await CommandRun.feedmerge(["state", "copy", state, copy])
        #expect(copied.status == 0, "\(copied.standardError)")
        #expect(try await ids(feeds(["idc", "idb"]) + ["--state", copy], w) == first)
    }

    /// A state fed by workers: `render` (given the list, or none) writes the
    /// id a one-shot run on that state writes.
    @Test func renderWritesTheIDTheWorkersKept() async throws {
        let w = try StateTests.Workspace("merged-id-render")
        let state = await PostgreSQLServer.shared.database()
        let list = w.path("list.txt")
        try Data(feeds(["idb", "ida", "idc"]).joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: list))
        let worker = try await CommandRun.feedmerge(
            ["worker", "-", "--state", state, "--now", Self.now, "--drain", "-q"],
            input: try Data(contentsOf: URL(fileURLWithPath: list)))
        #expect(worker.status == 0, "\(worker.standardError)")
        let rendered = try await ids(["render", "--state", state], w)
        #expect(rendered.atom.hasPrefix("urn:feedmerge:"), "\(rendered)")
        #expect(try await ids(["render", "--state", state] + feeds(["ida", "idb", "idc"]), w) == rendered)
        #expect(try await ids(feeds(["ida", "idc", "idb"]) + ["--state", state], w) == rendered)
        // The workers' list, merged without a state: the same id.
        #expect(try await ids(feeds(["idb", "ida", "idc"]) + ["--no-state"], w) == rendered)
    }
}
