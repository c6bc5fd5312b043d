import FeedFetch
import FeedModel
import FeedState
import Foundation
import PostgreSQLState
import TestSupport
import Testing

/// Many processes on one PostgreSQL state, against a real server of many
/// hosts (Server/hosts_server.py: each port of 127.0.0.1 a host, counting
/// every request and the most requests each host had in flight at once):
/// every due feed fetched once, the per-host limit held across processes,
/// a killed worker's hosts taken over, a stopped one holding nothing, and
/// outputs rendered the same on any node.
@Suite(.serialized, .tags(.slow), .fullTier) struct SharedStateTests {
    let server = PostgreSQLServer.shared
    static let hosts = HostsServer()
    static let now = HostsServer.now

    func list(
        _ w: StateTests.Workspace, count: Int, hosts: Int = 50, first: Int = 0, name: String = "feeds.opml"
    ) throws -> String {
        try Self.hosts.list(w, count: count, hosts: hosts, first: first, name: name)
    }

    func counts(reset: Bool = false) async throws -> HostsServer.Counts { try await Self.hosts.counts(reset: reset) }

    func startWorker(_ w: StateTests.Workspace, name: String, state: String, list: String, extra: [String] = [])
        throws -> ChildProcess
    {
        try HostsServer.startWorker(w, name: name, state: state, list: list, extra: extra)
    }

    func said(_ w: StateTests.Workspace, _ name: String) -> String { HostsServer.said(w, name) }

    func waitForRequests(_ count: Int, timeout: TimeInterval = 60) async throws {
        try await Self.hosts.waitForRequests(count, timeout: timeout)
    }

    @Test func threeWorkersFetchEveryDueFeedOnceWithinThePerHostLimitAndRenderTheSameBytesAnywhere() async throws {
        let w = try StateTests.Workspace("shared-three")
        let state = await server.database()
        let list = try list(w, count: 2_000)
        _ = try await counts(reset: true)
        var periods: [String] = [Self.now, "2024-02-02T00:00:00Z"]
        for (period, now) in periods.enumerated() {
            let workers = try (1...3).map {
                try startWorker(
                    w, name: "w\($0)-\(period)", state: state, list: list, extra: ["--drain", "--now", now])
            }
            for worker in workers { await worker.exited() }
            for (index, worker) in workers.enumerated() {
                #expect(worker.terminationStatus == 0, "\(said(w, "w\(index + 1)-\(period)"))")
            }
            let seen = try await counts()
            // Each due period: every feed asked exactly once, whichever worker asked it.
            #expect(seen.requests.count == 2_000)
            let times = Set(seen.requests.values)
            #expect(times == [period + 1], "requests per feed in period \(period): \(times)")
            let most = seen.mostInFlight.values.max() ?? 0
            #expect(most <= 2, "at most --per-host 2 in flight per host across the workers: \(seen.mostInFlight)")
            // The stop line, "<RFC 3339 time> feedmerge worker[NAME]: N fetched, ...": the time has colons too.
            let fetched = (1...3).map { said(w, "w\($0)-\(period)") }.map { text in
                text.split(separator: "\n").last.flatMap { line in
                    line.components(separatedBy: ": ").dropFirst().first?.split(separator: " ").first.flatMap {
                        Int($0)
                    }
                } ?? 0
            }
            #expect(fetched.reduce(0, +) == 2_000, "the summary lines: \(fetched)")
        }
        periods = []
        #expect(
            try await PostgreSQLServer.psql(state, "SELECT count(*) FROM hosts WHERE lease_token IS NOT NULL") == "0")
        #expect(
            try await PostgreSQLServer.psql(
                state, "SELECT count(*) FROM feeds WHERE fetched_by IS NULL OR next_check IS NULL")
                == "0")
        // Two nodes render the same state: the same bytes, every feed's entries in them.
        var rendered: [Data] = []
        for node in ["a", "b"] {
            try FileManager.default.createDirectory(atPath: w.path(node), withIntermediateDirectories: true)
            let run = try await CommandRun.feedmerge([
                "render", list, "--state", state, "--now", "2024-02-02T01:00:00Z", "--limit", "0",
                "-o", w.path("\(node)/feed.json"), "-o", w.path("\(node)/index.html"),
                "--health", w.path("\(node)/health.json"), "-q",
            ])
            #expect(run.status == 0, "\(run.standardError)")
            for name in ["feed.json", "index.html", "health.json"] {
                rendered.append(try Data(contentsOf: URL(fileURLWithPath: w.path("\(node)/\(name)"))))
            }
        }
        #expect(rendered[0] == rendered[3], "the merged feed")
        #expect(rendered[1] == rendered[4], "the page")
        #expect(rendered[2] == rendered[5], "the health report")
        let feed = try JSONSerialization.jsonObject(with: rendered[0]) as? [String: Any]
        let items = feed?["items"] as? [[String: Any]] ?? []
        #expect(items.count == 6_000, "three entries of each of 2,000 feeds")
        #expect(Set(items.compactMap { $0["id"] as? String }).count == 6_000, "none twice")
        let health = String(decoding: rendered[2], as: UTF8.self)
        #expect(health.contains("\"fetched_by\""), "the health report says who fetched each feed")
        // A node without the list: the same entries and the same health report (feeds in order of
        // their URLs, so entries of the same date too).
        let whole = try await CommandRun.feedmerge([
            "render", "--state", state, "--now", "2024-02-02T01:00:00Z", "--limit", "0", "-o", w.path("c.json"),
            "--health", w.path("c-health.json"), "-q",
        ])
        #expect(whole.status == 0, "\(whole.standardError)")
        func sorted(_ path: String, _ key: String, by field: String) throws -> [NSDictionary] {
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
            let list = (object as? [String: Any])?[key] as? [NSDictionary] ?? []
            return list.sorted { ($0[field] as? String ?? "") < ($1[field] as? String ?? "") }
        }
        let wholeItems = try sorted(w.path("c.json"), "items", by: "id")
        let itemsA = try sorted(w.path("a/feed.json"), "items", by: "id")
        #expect(wholeItems.count == 6_000 && wholeItems == itemsA)
        let wholeHealth = try sorted(w.path("c-health.json"), "feeds", by: "url")
        let healthA = try sorted(w.path("a/health.json"), "feeds", by: "url")
        #expect(wholeHealth.count == 2_000 && wholeHealth == healthA)
        // Rendering changed nothing, and fetched nothing.
        let total = try await counts().requests.values.reduce(0, +)
        #expect(total == 4_000)
    }

    @Test func aKilledWorkersHostsAreTakenOverWhenItsLeaseRunsOut() async throws {
        let w = try StateTests.Workspace("shared-killed")
        let state = await server.database()
        let list = try list(w, count: 600, hosts: 10)
        _ = try await counts(reset: true)
        // A worker that claims every host (60 feeds each, one at a time: 3 s at least), then is
        // killed mid-fetch, as soon as its leases are seen (however slowly it runs, under a sanitizer).
        let doomed = try startWorker(
            w, name: "doomed", state: state, list: list, extra: ["--lease", "3", "--hosts", "10", "--per-host", "1"])
        let deadline = Date().addingTimeInterval(60)
        func held() async -> String {
            (try? await PostgreSQLServer.psql(state, "SELECT count(*) FROM hosts WHERE lease_holder = 'doomed'")) ?? "0"
        }
        while await held() == "0", Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        kill(doomed.processIdentifier, SIGKILL)
        await doomed.exited()
        #expect(await held() == "10", "the killed worker held every host")
        #expect(try await counts().requests.count < 600, "it was killed mid-fetch")
        let started = Date()
        // The heir's own lease is the default: a 3 s lease of its own would be lost whenever a loaded
        // machine delays a renewal by 2 s (the full tier's other suites run meanwhile).
        let heir = try startWorker(w, name: "heir", state: state, list: list, extra: ["--drain"])
        await heir.exited()
        #expect(heir.terminationStatus == 0, "\(said(w, "heir"))")
        // It waited for the dead worker's leases (3 s) and no longer.
        #expect(Date().timeIntervalSince(started) < 60)
        #expect(said(w, "heir").contains(" 0 leases lost"), "\(said(w, "heir"))")
        #expect(try await PostgreSQLServer.psql(state, "SELECT count(*) FROM feeds WHERE last_fetch IS NULL") == "0")
        #expect(
            try await PostgreSQLServer.psql(state, "SELECT count(*) FROM hosts WHERE lease_token IS NOT NULL") == "0")
        // Every entry stored once: what the killed worker stored stays, what it did not is fetched again.
        let run = try await CommandRun.feedmerge([
            "render", list, "--state", state, "--now", Self.now, "--limit", "0", "-o", w.path("all.json"), "-q",
        ])
        #expect(run.status == 0, "\(run.standardError)")
        let feed = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: w.path("all.json"))))
        let ids = ((feed as? [String: Any])?["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(ids.count == 1_800 && Set(ids).count == 1_800)
        #expect(try await PostgreSQLServer.psql(state, "SELECT count(DISTINCT fetched_by) FROM feeds") != "0")
    }

    @Test func sigtermStopsAWorkerCleanlyWithNoLeaseLeftHeld() async throws {
        let w = try StateTests.Workspace("shared-term")
        let state = await server.database()
        // Each feed answered after 1 s: its five claims take 100 s, longer than a loaded pool may keep this
        // task from sending the signal (ThreadSanitizer's suite), so the signal always finds feeds unclaimed.
        let list = try Self.hosts.list(w, count: 400, hosts: 10, delay: 1)
        _ = try await counts(reset: true)
        let worker = try startWorker(w, name: "calm", state: state, list: list, extra: ["--hosts", "2"])
        try await waitForRequests(10)
        kill(worker.processIdentifier, SIGTERM)
        await worker.exited()
        #expect(worker.terminationReason == .exit && worker.terminationStatus == 0, "\(said(w, "calm"))")
        #expect(said(w, "calm").contains("stopped by SIGTERM"), "\(said(w, "calm"))")
        #expect(
            try await PostgreSQLServer.psql(state, "SELECT count(*) FROM hosts WHERE lease_token IS NOT NULL") == "0")
        // It finished what it held: every feed it asked for is stored, and it claimed no more.
        let asked = try await counts().requests.count
        let stored = Int(
            try await PostgreSQLServer.psql(state, "SELECT count(*) FROM feeds WHERE last_fetch IS NOT NULL"))
        #expect(stored == asked && asked < 400, "asked \(asked), stored \(stored ?? -1)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: w.path(".")).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty)
    }

    @Test func oneShotRunsAtOnceShareTheStateAndFetchEachFeedOnce() async throws {
        let w = try StateTests.Workspace("shared-oneshot")
        let state = await server.database()
        let list = try list(w, count: 200, hosts: 10)
        _ = try await counts(reset: true)
        let runs = try ["a", "b"].map { name in
            let process = ChildProcess()
            process.executableURL = CommandRun.binary
            process.arguments = [
                list, "--state", state, "--now", Self.now, "--per-host", "2", "--host-spacing", "0", "--limit", "0",
                "-o",
                w.path("\(name).json"),
                "-q",
            ]
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }
        for run in runs { await run.exited() }
        #expect(runs.allSatisfy { $0.terminationStatus == 0 })
        let seen = try await counts()
        #expect(seen.requests.count == 200 && Set(seen.requests.values) == [1], "each feed fetched by one run")
        #expect((seen.mostInFlight.values.max() ?? 0) <= 2)
        #expect(
            try await PostgreSQLServer.psql(state, "SELECT count(*) FROM hosts WHERE lease_token IS NOT NULL") == "0")
        // A later one-shot run sees every feed's entries.
        let after = try await CommandRun.feedmerge([
            list, "--state", state, "--now", Self.now, "--limit", "0", "-o", w.path("after.json"), "-q",
        ])
        #expect(after.status == 0)
        let feed = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: w.path("after.json"))))
        #expect(((feed as? [String: Any])?["items"] as? [Any])?.count == 600)
    }

    /// Runs given different lists share one state whose feeds are the union
    /// of the lists named in the last 2 days: `render` with no SOURCE shows
    /// exactly those, on a node that has none of the lists.
    @Test func renderWithNoSourceShowsTheFeedsOfEveryListNamedWithinTwoDays() async throws {
        let w = try StateTests.Workspace("shared-union")
        let state = await server.database()
        let lists = [
            try list(w, count: 20, hosts: 5, name: "a.opml"),
            try list(w, count: 20, hosts: 5, first: 20, name: "b.opml"),
        ]
        for (list, now) in zip(lists, ["2024-02-01T00:00:00Z", "2024-02-02T00:00:00Z"]) {
            let run = try await CommandRun.feedmerge([
                list, "--state", state, "--now", now, "-o", w.path("run.json"), "-q",
            ])
            #expect(run.status == 0, "\(run.standardError)")
        }
        func render(at now: String) async throws -> (run: CommandRun, items: Int, health: [String]) {
            let run = try await CommandRun.feedmerge([
                "render", "--state", state, "--now", now, "--limit", "0", "-o", w.path("all.json"),
                "--health", w.path("health.json"), "-q",
            ])
            guard run.status == 0 else { return (run, 0, []) }
            let feed = try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: w.path("all.json"))))
            let health = try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: w.path("health.json"))))
            let feeds = (health as? [String: Any])?["feeds"] as? [[String: Any]] ?? []
            return (
                run, ((feed as? [String: Any])?["items"] as? [Any])?.count ?? -1,
                feeds.compactMap { $0["url"] as? String }
            )
        }
        let both = try await render(at: "2024-02-02T01:00:00Z")
        #expect(both.run.status == 0, "\(both.run.standardError)")
        #expect(both.items == 120, "three entries of each feed of both lists")
        #expect(both.health.count == 40 && both.health == both.health.sorted(), "every feed, in order of its URL")
        let later = try await render(at: "2024-02-03T12:00:00Z")
        #expect(later.items == 60, "a.opml was last named 2.5 days before: its feeds are no longer listed")
        let laterNumbers = later.health.map { url in Int(url.split(separator: "/").last?.dropLast(4) ?? "") ?? -1 }
        #expect(
            laterNumbers.count == 20 && Set(laterNumbers) == Set(20..<40), "b.opml's feeds alone: \(later.health)")
        let none = try await render(at: "2024-02-10T00:00:00Z")
        #expect(none.run.status == 2 && none.run.standardError.contains("the state lists no feed"))
        let kept = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: w.path("all.json"))))
        #expect(((kept as? [String: Any])?["items"] as? [Any])?.count == 60, "the output before is left as it was")

        // A SQLite state keeps no list: render asks for the SOURCEs, before it opens (or makes) the file.
        let local = try await CommandRun.feedmerge([
            "render", "--state", w.path("state.sqlite"), "-o", w.path("local.json"), "-q",
        ])
        #expect(
            local.status == 2 && local.standardError.contains("a SQLite state keeps no list"), "\(local.standardError)")
        #expect(!FileManager.default.fileExists(atPath: w.path("state.sqlite")))
    }

    /// A one-shot run ended by a signal lets its hosts go at once (not when
    /// their leases run out); a worker given a second signal too.
    @Test func aRunEndedByASignalLetsItsHostsGo() async throws {
        let w = try StateTests.Workspace("shared-signal")
        let state = await server.database()
        let list = try list(w, count: 400, hosts: 10)
        _ = try await counts(reset: true)
        let run = ChildProcess()
        run.executableURL = CommandRun.binary
        run.arguments = [
            list, "--state", state, "--now", Self.now, "--per-host", "1", "--host-spacing", "0", "-o",
            w.path("out.json"),
            "-q",
        ]
        run.standardError = FileHandle.nullDevice
        try run.run()
        try await waitForRequests(10)
        #expect(
            try await PostgreSQLServer.psql(state, "SELECT count(*) FROM hosts WHERE lease_token IS NOT NULL") == "10")
        kill(run.processIdentifier, SIGTERM)
        await run.exited()
        #expect(run.terminationStatus == 143)
        #expect(
            try await PostgreSQLServer.psql(state, "SELECT count(*) FROM hosts WHERE lease_token IS NOT NULL") == "0")

        let worker = try startWorker(w, name: "twice", state: state, list: list, extra: ["--hosts", "10"])
        let deadline = Date().addingTimeInterval(60)
        while try await PostgreSQLServer.psql(state, "SELECT count(*) FROM hosts WHERE lease_holder = 'twice'") == "0",
            Date() < deadline
        {
            try await Task.sleep(for: .milliseconds(50))
        }
        kill(worker.processIdentifier, SIGTERM)
        // Two signals sent before the first is delivered are one: the second is sent once the first is said.
        let firstSaid = Date().addingTimeInterval(60)
        while !said(w, "twice").contains(": SIGTERM: claiming no more"), Date() < firstSaid {
            try await Task.sleep(for: .milliseconds(50))
        }
        kill(worker.processIdentifier, SIGTERM)
        await worker.exited()
        #expect(worker.terminationStatus == 143, "the second signal ends it at once: \(said(w, "twice"))")
        #expect(
            try await PostgreSQLServer.psql(state, "SELECT count(*) FROM hosts WHERE lease_token IS NOT NULL") == "0")
    }
}
