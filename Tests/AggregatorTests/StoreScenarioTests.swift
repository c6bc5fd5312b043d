import FeedFetch
import Foundation
import TestSupport
import Testing

@testable import FeedState
@testable import SQLiteState

/// The command line over HTTP, the same runs against a SQLite file and a
/// PostgreSQL database (a real server, started by the tests): every output
/// and the health report come out byte-identical after each step of a
/// feed's life (a fresh run, all not modified, changed entries, failures,
/// a Retry-After deferral, a permanent redirect and the list following it,
/// retention after 100 days, a damaged document and its repair).
@Suite(.serialized) struct StoreScenarioTests {
    let server = PlanetServer.state
    let outputs = ["out.atom", "out.rss", "out.json", "health.json"]

    func control(_ path: String) async throws {
        _ = try await HTTPClient().fetch(FetchRequest(url: server.url(path)))
    }

    struct Step {
        var now: String
        var modes: [String: String] = [:]
        var feeds = ["rsseqa", "atomeqa", "jsoneqa", "rsseqm", "rsseqb"]
        /// SQL that damages both states the same way before the step.
        var damage: String?
    }

    static let steps: [Step] = [
        Step(
            now: "2024-02-01T00:00:00Z",
            modes: ["rsseqa": "ok", "atomeqa": "ok", "jsoneqa": "ok", "rsseqm": "ok", "rsseqb": "backlog"]),
        Step(now: "2024-02-02T00:00:00Z"),  // all not modified
        Step(now: "2024-02-03T00:00:00Z", modes: ["rsseqa": "drop", "atomeqa": "edit"]),
        Step(now: "2024-02-04T00:00:00Z", modes: ["jsoneqa": "fail", "atomeqa": "retry"]),
        Step(now: "2024-02-04T00:30:00Z"),  // atomeqa deferred
        Step(now: "2024-02-05T00:00:00Z", modes: ["jsoneqa": "ok", "atomeqa": "ok", "rsseqm": "moved"]),
        Step(now: "2024-02-06T00:00:00Z", feeds: ["rsseqa", "atomeqa", "jsoneqa", "rsseqm-new", "rsseqb"]),
        Step(
            now: "2024-05-20T00:00:00Z", modes: ["rsseqa": "ok"], feeds: ["rsseqa", "atomeqa", "jsoneqa", "rsseqm-new"]),
        Step(
            now: "2024-05-21T00:00:00Z", feeds: ["rsseqa", "atomeqa", "jsoneqa", "rsseqm-new"],
            damage:
                "UPDATE feed_entries SET document = '\\xff00' WHERE feed = (SELECT id FROM feeds WHERE url LIKE '%/rsseqa')"
        ),
        // Fetched whole (the damaged document dropped the validators): its history still cannot be read.
        Step(now: "2024-05-22T00:00:00Z", feeds: ["rsseqa", "atomeqa", "jsoneqa", "rsseqm-new"]),
        Step(now: "2024-05-23T00:00:00Z", feeds: ["rsseqa", "atomeqa", "jsoneqa", "rsseqm-new"]),
    ]

    @Test func sqliteAndPostgreSQLGiveTheSameBytesAtEveryStep() async throws {
        let w = try StateTests.Workspace("store-scenario")
        let postgreSQL = await PostgreSQLServer.shared.database()
        try FileManager.default.createDirectory(atPath: w.path("sqlite"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: w.path("postgresql"), withIntermediateDirectories: true)
        for (index, step) in Self.steps.enumerated() {
            for (feed, mode) in step.modes { try await control("/set/\(feed)/\(mode)") }
            if let damage = step.damage {
                let sqlite = try SQLiteDatabase(path: w.path("sqlite/state.sqlite"))
                try sqlite.execute(damage.replacingOccurrences(of: "'\\xff00'", with: "X'FF00'"))
                try await PostgreSQLServer.psql(postgreSQL, damage)
            }
            var runs: [CommandRun] = []
            for (folder, state) in [("sqlite", w.path("sqlite/state.sqlite")), ("postgresql", postgreSQL)] {
                let written = outputs.dropLast().flatMap { ["-o", w.path("\(folder)/\($0)")] }
                runs.append(
                    try await CommandRun.feedmerge(
                        step.feeds.map { server.url("/feed/\($0)") } + written + [
                            "--health", w.path("\(folder)/health.json"), "--now", step.now, "--state", state,
                            "--link", "http://planet.example/", "-q",
                        ]))
            }
            #expect(
                runs[0].status == runs[1].status, "step \(index): \(runs[0].standardError) | \(runs[1].standardError)")
            for name in outputs {
                let sqlite = try Data(contentsOf: URL(fileURLWithPath: w.path("sqlite/\(name)")))
                let postgres = try Data(contentsOf: URL(fileURLWithPath: w.path("postgresql/\(name)")))
                if name == "health.json" {  // a notice names the state (the file, the database)
                    let named = String(decoding: sqlite, as: UTF8.self)
                        .replacingOccurrences(of: w.path("sqlite/state.sqlite"), with: "STATE")
                    // (A shared state also says which machine fetched each feed.)
                    let other = String(decoding: postgres, as: UTF8.self)
                        .replacingOccurrences(
                            of: #"postgresql://[^ ]*?/test_[0-9]+_[0-9]+"#, with: "STATE", options: .regularExpression
                        )
                        .replacingOccurrences(of: #","fetched_by":"[^"]*""#, with: "", options: .regularExpression)
                    #expect(named == other, "step \(index): \(name) differs")
                } else {
                    #expect(sqlite == postgres, "step \(index): \(name) differs")
                }
            }
            // The steps did what they are meant to exercise.
            switch index {
            case 1:
                let health = try String(contentsOfFile: w.path("postgresql/health.json"), encoding: .utf8)
                #expect(health.components(separatedBy: "\"http_status\":304").count - 1 == 5, "\(health)")
            case 5, 6:
                // rsseqm answers 301, its new address 304 (the copy stored); once listed, the
                // new address continues the feed, asked with its validators.
                let data = try Data(contentsOf: URL(fileURLWithPath: w.path("postgresql/health.json")))
                let health = try JSONSerialization.jsonObject(with: data) as? [String: Any]
                let feeds = health?["feeds"] as? [[String: Any]] ?? []
                let url = server.url(index == 5 ? "/feed/rsseqm" : "/feed/rsseqm-new")
                let feed = try #require(feeds.first { $0["url"] as? String == url })
                if index == 5 {
                    #expect(feed["moved_to"] as? String == server.url("/feed/rsseqm-new"), "\(feed)")
                } else {
                    #expect(feed["http_status"] as? Int == 304, "\(feed)")
                }
            case 8:
                #expect(runs[1].status == 74 && runs[1].standardError.contains("damaged"), "\(runs[1].standardError)")
            case 10:
                #expect(runs[1].status == 0, "the damaged document was not replaced: \(runs[1].standardError)")
            default:
                break
            }
        }
        for feed in ["rsseqa", "atomeqa", "jsoneqa", "rsseqm", "rsseqb"] { try await control("/set/\(feed)/ok") }
    }
}
