import Foundation
import TestSupport
import Testing

/// Workers against faults, with real processes: a PostgreSQL server of the
/// suite's own that goes away for a while (`pg_ctl stop`, then `start`), a
/// worker stopped (SIGSTOP) past its lease while another takes its hosts,
/// and signals while the state cannot be used. A worker never stops
/// silently: it tries the state again for as long as it runs, says when it
/// lost it and when it is back, counts only what was stored, exits 74 when
/// it stops with work left that the state kept it from, and asks no host
/// whose lease it lost. The outages (15 s and more) are in the full tier.
@Suite(.serialized) struct WorkerFaultTests {
    static let hosts = HostsServer()
    /// The server these tests stop and start (the shared one serves suites running meanwhile).
    static let postgres: PostgreSQLServer = {
        do {
            return try PostgreSQLServer.dedicated()
        } catch {
            fatalError("cannot start a PostgreSQL server for the tests: \(error)")
        }
    }()

    /// The lines a worker said that begin with an RFC 3339 UTC time and its name, then `text`.
    func stampedLines(_ said: String, worker: String, _ text: String) -> [Substring] {
        let stamp = #/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z feedmerge worker [^:]+: /#
        return said.split(separator: "\n").filter {
            $0.contains(stamp) && $0.contains(" feedmerge worker \(worker): ") && $0.contains(text)
        }
    }

    /// Waits until `condition` holds or `seconds` pass (suspended: the pool's few threads serve
    /// the suites running meanwhile).
    func wait(upTo seconds: Double, until condition: () async -> Bool = { false }) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while await !condition(), Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
    }

    /// How many hosts `name` holds now.
    func held(by name: String, _ state: String) async -> Int {
        Int(
            (try? await PostgreSQLServer.psql(state, "SELECT count(*) FROM hosts WHERE lease_holder = '\(name)'")) ?? ""
        )
            ?? 0
    }

    /// A worker started once it holds its first claim's hosts and the hosts have answered `requests`.
    func startClaiming(
        _ w: StateTests.Workspace, name: String, state: String, list: String, requests: Int, extra: [String] = []
    ) async throws -> ChildProcess {
        _ = try await Self.hosts.counts(reset: true)
        let worker = try HostsServer.startWorker(w, name: name, state: state, list: list, extra: extra)
        try await wait(upTo: 60) { await held(by: name, state) > 0 }
        try await Self.hosts.waitForRequests(requests)
        return worker
    }

    func stored(_ state: String) async -> Int {
        Int((try? await PostgreSQLServer.psql(state, "SELECT count(*) FROM feeds WHERE last_fetch IS NOT NULL")) ?? "")
            ?? -1
    }

    /// The server goes away mid-claim for 15 s: the worker says so once,
    /// with the time, tries again (every 15 s at most), says when the state
    /// is back, and stores every feed.
    @Test(.tags(.slow), .fullTier) func aWorkerRidesOutA15SecondOutageAndStoresEveryFeed() async throws {
        try await rideOutAnOutage(seconds: 15)
    }

    /// The same past the longest wait between tries (15 s).
    @Test(.tags(.slow), .fullTier) func aWorkerRidesOutA60SecondOutageAndStoresEveryFeed() async throws {
        try await rideOutAnOutage(seconds: 60)
    }

    func rideOutAnOutage(seconds: Int) async throws {
        let w = try StateTests.Workspace("worker-outage-\(seconds)")
        let state = await Self.postgres.database()
        let list = try Self.hosts.list(w, count: 160, hosts: 4, delay: 0.2)
        let worker = try await startClaiming(w, name: "steady", state: state, list: list, requests: 20, extra: ["-v"])
        defer { if worker.isRunning { kill(worker.processIdentifier, SIGKILL) } }
        await Self.postgres.stop()
        // Started again on every path, as a `defer` would (it cannot await).
        try await Self.postgres.startingAfter {
            let stopped = Date()
            try await wait(upTo: Double(seconds) - Date().timeIntervalSince(stopped))
            // The loss is said when the worker next claims: after its claim in flight has ended, which
            // on a loaded machine may be after the outage's length; the server stays away until then.
            try await wait(upTo: 60) {
                !stampedLines(HostsServer.said(w, "steady"), worker: "steady", "state lost: ").isEmpty
            }
            let lostDuringOutage = stampedLines(HostsServer.said(w, "steady"), worker: "steady", "state lost: ")
            await Self.postgres.start()
            // Stored, and the worker has claimed again (its wait between tries is up to 15 s): the
            // feeds a claim stored as the server came back may be in before the worker says so.
            try await wait(upTo: 60) {
                await stored(state) == 160
                    && !stampedLines(HostsServer.said(w, "steady"), worker: "steady", "state back after ").isEmpty
            }
            let said = HostsServer.said(w, "steady")
            #expect(await stored(state) == 160, "every feed stored after the outage: \(said)")
            #expect(lostDuringOutage.count == 1, "the loss said once, while it lasted: \(said)")
            #expect(stampedLines(said, worker: "steady", "state lost: cannot claim feeds").count == 1, "\(said)")
            #expect(stampedLines(said, worker: "steady", "state back after ").count == 1, "\(said)")
            // A claim the outage struck (if it struck one rather than falling between claims) counts what
            // it could not store as not stored, never as fetched: every feed is in only once the state is back.
            kill(worker.processIdentifier, SIGTERM)
            await worker.exited()
            #expect(worker.terminationStatus == 0, "stopped with the state back: \(said)")
            #expect(
                try await PostgreSQLServer.psql(state, "SELECT count(*) FROM hosts WHERE lease_token IS NOT NULL")
                    == "0")
        }
    }

    /// `/healthz` answers 503 with the reason once the state has been lost
    /// for `--unhealthy-after`, and 200 again once the worker has claimed
    /// after its return; `/metrics` says the same meanwhile.
    @Test(.tags(.slow), .fullTier) func healthzTurns503DuringAnOutageAnd200AfterIt() async throws {
        let w = try StateTests.Workspace("worker-healthz")
        let state = await Self.postgres.database()
        let list = try Self.hosts.list(w, count: 160, hosts: 4, delay: 0.2)
        let worker = try await startClaiming(
            w, name: "watched", state: state, list: list, requests: 20,
            extra: ["--metrics-listen", "127.0.0.1:0", "--unhealthy-after", "2"])
        defer { if worker.isRunning { kill(worker.processIdentifier, SIGKILL) } }
        let start = try #require(stampedLines(HostsServer.said(w, "watched"), worker: "watched", " starting: ").first)
        let address = try #require(start.firstMatch(of: #/http://([0-9.:]+)$/#)?.1)
        #expect(try await Operations.get("http://\(address)/healthz").status == 200)
        await Self.postgres.stop()
        // Started again on every path, as a `defer` would (it cannot await).
        try await Self.postgres.startingAfter {
            var health = (status: 0, body: "")
            try await Operations.wait(upTo: 90) {
                health = try await Operations.get("http://\(address)/healthz")
                return health.status == 503
            }
            #expect(health.status == 503, "\(HostsServer.said(w, "watched"))")
            #expect(health.body.hasPrefix("unhealthy: the state cannot be used for "), "\(health.body)")
            let during = try await Operations.get("http://\(address)/metrics").body
            try await PromTool.check(during)
            #expect(during.contains("feedmerge_state_up 0\n") && !during.contains("feedmerge_state_errors_total 0\n"))
            await Self.postgres.start()
            try await Operations.wait(upTo: 60) {
                health = try await Operations.get("http://\(address)/healthz")
                return health.status == 200
            }
            #expect(health.status == 200, "healthy once it claims again: \(health.body)")
            #expect(try await Operations.get("http://\(address)/metrics").body.contains("feedmerge_state_up 1\n"))
            let said = HostsServer.said(w, "watched")
            #expect(stampedLines(said, worker: "watched", "state lost: ").count == 1, "\(said)")
            #expect(stampedLines(said, worker: "watched", "state back after ").count == 1, "\(said)")
            kill(worker.processIdentifier, SIGTERM)
            await worker.exited()
        }
    }

    /// A draining worker whose state goes away for longer than it waits
    /// stops with feeds still due: 74, not 0.
    @Test(.tags(.slow), .fullTier) func aDrainingWorkerStoppedByAnOutageWithFeedsDueExits74() async throws {
        let w = try StateTests.Workspace("worker-drain-outage")
        let state = await Self.postgres.database()
        // Long enough that the state is stopped while it fetches (a sanitizer slows the test's
        // stopping of the server as much as the worker: `SanitizerRuntime.timeScale`).
        let list = try Self.hosts.list(w, count: 160, hosts: 4, delay: 0.2 * SanitizerRuntime.timeScale)
        let worker = try await startClaiming(
            w, name: "drainer", state: state, list: list, requests: 20, extra: ["--drain"])
        defer { if worker.isRunning { kill(worker.processIdentifier, SIGKILL) } }
        await Self.postgres.stop()
        // Started again on every path, as a `defer` would (it cannot await).
        try await Self.postgres.startingAfter {
            let stopped = Date()
            try await wait(upTo: 60) { !worker.isRunning }
            let waited = Date().timeIntervalSince(stopped)
            await Self.postgres.start()
            await worker.exited()
            let said = HostsServer.said(w, "drainer")
            #expect(worker.terminationStatus == 74, "\(said)")
            #expect(waited < 30, "it tried the state for 10 s, then stopped: \(waited) s")
            #expect(stampedLines(said, worker: "drainer", "state lost: ").count == 1, "\(said)")
            #expect(stampedLines(said, worker: "drainer", "stopping with the state lost").count == 1, "\(said)")
            #expect(said.contains(" 0 fetched, ") && !said.contains(" 0 not stored"), "nothing counted stored: \(said)")
            #expect(await stored(state) < 160, "feeds are left due")
        }
    }

    /// SIGTERM while the worker waits to try a lost state again ends it at once (74: the state is lost).
    @Test func sigtermDuringTheWaitAfterAFailedClaimEndsTheWorkerAtOnce() async throws {
        let w = try StateTests.Workspace("worker-term-outage")
        let state = await Self.postgres.database()
        let list = try Self.hosts.list(w, count: 16, hosts: 1, delay: 0.2)
        let worker = try await startClaiming(
            w, name: "waiting", state: state, list: list, requests: 2, extra: ["--per-host", "1"])
        defer { if worker.isRunning { kill(worker.processIdentifier, SIGKILL) } }
        await Self.postgres.stop()
        // Started again on every path, as a `defer` would (it cannot await).
        try await Self.postgres.startingAfter {
            try await wait(upTo: 30) {
                !stampedLines(HostsServer.said(w, "waiting"), worker: "waiting", "state lost: ").isEmpty
            }
            try await Task.sleep(for: .seconds(1))  // past the first try again (0.5 s): in the longer wait after it
            let sent = Date()
            kill(worker.processIdentifier, SIGTERM)
            await worker.exited()
            // The end as the termination handler saw it: the time measured is the worker's, not the pool's.
            let took = try #require(worker.endTime).timeIntervalSince(sent)
            let said = HostsServer.said(w, "waiting")
            #expect(took < 2, "it stopped at once: \(took) s; \(said)")
            #expect(worker.terminationStatus == 74, "stopped with the state lost: \(said)")
            #expect(said.contains("stopped by SIGTERM"), "\(said)")
        }
    }

    /// A worker stopped (SIGSTOP) past its lease while another claims its
    /// hosts asks none of them once it runs again: at most --per-host in
    /// flight at each host, counted at the hosts.
    @Test func aWorkerStoppedPastItsLeaseAsksNoHostItLost() async throws {
        let w = try StateTests.Workspace("worker-stall")
        let state = await PostgreSQLServer.shared.database()
        let list = try Self.hosts.list(w, count: 80, hosts: 2, delay: 0.3)
        let stalled = try await startClaiming(
            w, name: "stalled", state: state, list: list, requests: 4, extra: ["--lease", "2"])
        defer { if stalled.isRunning { kill(stalled.processIdentifier, SIGKILL) } }
        #expect(await held(by: "stalled", state) == 2)
        kill(stalled.processIdentifier, SIGSTOP)
        try await Task.sleep(for: .seconds(4))  // past its lease (2 s, on a server clock of whole seconds)
        let heir = try HostsServer.startWorker(w, name: "heir", state: state, list: list, extra: ["--drain"])
        defer { if heir.isRunning { kill(heir.processIdentifier, SIGKILL) } }
        try await wait(upTo: 30) { await held(by: "heir", state) == 2 }
        #expect(await held(by: "heir", state) == 2, "the heir holds both hosts: \(HostsServer.said(w, "heir"))")
        kill(stalled.processIdentifier, SIGCONT)
        try await wait(upTo: 60) { !heir.isRunning }
        await heir.exited()
        kill(stalled.processIdentifier, SIGTERM)
        await stalled.exited()
        let seen = try await Self.hosts.counts()
        #expect(
            (seen.mostInFlight.values.max() ?? 0) <= 2,
            "at most --per-host 2 in flight at each host: \(seen.mostInFlight)")
        let said = HostsServer.said(w, "stalled")
        #expect(heir.terminationStatus == 0, "\(HostsServer.said(w, "heir"))")
        #expect(stalled.terminationStatus == 0, "\(said)")
        #expect(stampedLines(said, worker: "stalled", "lost the lease").count >= 1, "\(said)")
        #expect(said.contains(" 2 leases lost"), "\(said)")
        #expect(await stored(state) == 80)
    }
}
