import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A worker as an operator runs it, with real parts: its JSON log read line
/// by line (a start-up line, every failing feed named with its time and
/// reason), its `/metrics` checked by `promtool` and scraped by a real
/// Prometheus server, its `/healthz`; and a one-shot run's `--metrics FILE`.
@Suite struct WorkerOperationsTests {
    static let hosts = HostsServer()

    /// 12 feeds on 3 hosts and one that answers 404.
    func list(_ w: StateTests.Workspace) throws -> (path: String, missing: String) {
        let path = try Self.hosts.list(w, count: 12, hosts: 3)
        let missing = "http://127.0.0.1:\(Self.hosts.server.ports[1])/missing.xml"
        let opml = try String(contentsOfFile: path, encoding: .utf8)
            .replacingOccurrences(of: "</body>", with: "<outline type=\"rss\" xmlUrl=\"\(missing)\"/>\n</body>")
        try opml.write(toFile: path, atomically: true, encoding: .utf8)
        return (path, missing)
    }

    @Test func aWorkersJSONLogMetricsAndHealthTellItsOperatorWhatHappened() async throws {
        let w = try StateTests.Workspace("worker-operations")
        let state = await PostgreSQLServer.shared.database()
        let (list, missing) = try list(w)
        let worker = try HostsServer.startWorker(
            w, name: "observed", state: state, list: list,
            extra: ["--metrics-listen", "127.0.0.1:0", "--log-format", "json"])
        defer { if worker.isRunning { kill(worker.processIdentifier, SIGKILL) } }
        // Every feed asked: the worker says it is idle.
        var events: [[String: Any]] = []
        try await Operations.wait(upTo: 60) {
            events = Operations.jsonLines(HostsServer.said(w, "observed"))
            return events.contains { $0["event"] as? String == "idle" }
        }
        let said = HostsServer.said(w, "observed")
        #expect(events.count == said.split(separator: "\n").count, "every line one JSON object: \(said)")
        for event in events {
            #expect((event["time"] as? String)?.contains(Operations.rfc3339) == true, "\(event)")
            #expect(event["program"] as? String == "feedmerge worker" && event["worker"] as? String == "observed")
            #expect(["info", "warning", "error"].contains(event["level"] as? String ?? ""), "\(event)")
        }
        let start = try #require(events.first)
        #expect(start["event"] as? String == "start", "the first line says what starts: \(said)")
        #expect(start["version"] as? String != nil && start["feeds"] as? Int == 13)
        #expect(!(start["state"] as? String ?? "").isEmpty)
        let address = try #require(start["metrics_listen"] as? String)
        let failures = events.filter { $0["event"] as? String == "feed_failed" }
        #expect(failures.count == 1, "the failing feed named once: \(said)")
        #expect(failures.first?["url"] as? String == missing)
        #expect(failures.first?["http_status"] as? Int == 404)
        #expect((failures.first?["message"] as? String)?.hasPrefix("failed: \(missing): ") == true)

        let metrics = try await Operations.get("http://\(address)/metrics")
        #expect(metrics.status == 200)
        try await PromTool.check(metrics.body)
        #expect(
            metrics.body.contains("feedmerge_fetches_total{outcome=\"fetched\",code=\"2xx\"} 12\n"), "\(metrics.body)")
        #expect(metrics.body.contains("feedmerge_fetches_total{outcome=\"failed\",code=\"4xx\"} 1\n"))
        #expect(metrics.body.contains("feedmerge_entries_stored_total 36\n"))
        #expect(metrics.body.contains("feedmerge_state_up 1\n") && metrics.body.contains("feedmerge_leases_held 0\n"))
        #expect(!metrics.body.contains("feedmerge_claims_total 0\n"))
        #expect(try await Operations.get("http://\(address)/healthz").status == 200)

        // A real Prometheus scrapes it.
        let prometheus = try Operations.Prometheus(scraping: address, in: w)
        // Stopped once the rest of the test is done, on every path.
        try await prometheus.stopping {
            var fetched: String?
            try await Operations.wait(upTo: 60) {
                fetched = await prometheus.query("sum(feedmerge_fetches_total{outcome=\"fetched\"})")
                return fetched == "12"
            }
            #expect(fetched == "12", "Prometheus scraped the worker: \(prometheus.log())")
            #expect(await prometheus.query("up{job=\"feedmerge\"}") == "1")

            kill(worker.processIdentifier, SIGTERM)
            await worker.exited()
            #expect(worker.terminationStatus == 0)
            let last = Operations.jsonLines(HostsServer.said(w, "observed")).last
            #expect(
                last?["event"] as? String == "stop" && last?["fetched"] as? Int == 12, "\(String(describing: last))")
        }
    }

    @Test func aWorkersTextLogTimesEveryLine() async throws {
        let w = try StateTests.Workspace("worker-text-log")
        let state = await PostgreSQLServer.shared.database()
        let (list, missing) = try list(w)
        let worker = try HostsServer.startWorker(w, name: "plain", state: state, list: list, extra: ["--drain"])
        await worker.exited()
        let said = HostsServer.said(w, "plain")
        #expect(worker.terminationStatus == 0, "\(said)")
        let lines = said.split(separator: "\n")
        #expect(lines.count >= 3, "\(said)")
        for line in lines {
            #expect(line.contains(#/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z feedmerge worker plain: /#), "\(line)")
        }
        let version = await feedmergeVersionInTests()
        #expect(lines.first?.contains(": feedmerge \(version) starting: state ") == true, "\(said)")
        #expect(lines.contains { $0.contains(": failed: \(missing): ") }, "\(said)")
        #expect(lines.last?.contains(": 12 fetched, 0 not modified, 1 failed, ") == true, "\(said)")
    }

    /// A second signal ends the worker at once, said in the worker's own words.
    @Test func aSecondSIGTERMIsSaidAsTheWorkers() async throws {
        let w = try StateTests.Workspace("worker-second-signal")
        let state = await PostgreSQLServer.shared.database()
        // One claim of 400 feeds asked one at a time, each answered after 0.5 s: it lasts minutes, longer
        // than this test's task may wait for a thread of a loaded pool (under ThreadSanitizer, over a minute).
        let list = try Self.hosts.list(w, count: 400, hosts: 1, delay: 0.5)
        let worker = try HostsServer.startWorker(
            w, name: "hurried", state: state, list: list, extra: ["--per-host", "1", "--hosts", "1"])
        defer { if worker.isRunning { kill(worker.processIdentifier, SIGKILL) } }
        try await Operations.wait(upTo: 60) {
            (try? await PostgreSQLServer.psql(state, "SELECT count(*) FROM hosts WHERE lease_holder = 'hurried'"))
                == "1"
        }
        kill(worker.processIdentifier, SIGTERM)
        // Two signals sent before the first is delivered are one: the second is sent once the first is said.
        try await Operations.wait(upTo: 60) { HostsServer.said(w, "hurried").contains(": SIGTERM: claiming no more") }
        kill(worker.processIdentifier, SIGTERM)
        await worker.exited()
        let said = HostsServer.said(w, "hurried")
        #expect(worker.terminationStatus == 128 + SIGTERM, "\(said)")
        let last = said.split(separator: "\n").last ?? ""
        #expect(
            last.contains(
                #/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z feedmerge worker hurried: stopped at once by a second SIGTERM/#
            ),
            "\(said)")
        #expect(!said.contains("outputs left as they were"), "\(said)")
    }

    /// The run's metrics for node_exporter's textfile collector, written whole.
    @Test func aOneShotRunWritesItsMetricsToAFile() async throws {
        let w = try StateTests.Workspace("run-metrics")
        let (list, _) = try list(w)
        let metrics = w.path("feedmerge.prom")
        try "old".write(toFile: metrics, atomically: true, encoding: .utf8)
        // A local file that is no feed fails with no HTTP answer.
        try "no feed".write(toFile: w.path("notes.xml"), atomically: true, encoding: .utf8)
        let run = try await CommandRun.feedmerge([
            list, w.path("notes.xml"), "-o", w.path("merged.atom"), "--state", w.state, "--metrics", metrics,
            "--now", HostsServer.now,
        ])
        #expect(run.status == 1, "a feed failed: \(run.standardError)")
        let text = try String(contentsOfFile: metrics, encoding: .utf8)
        try await PromTool.check(text)
        #expect(text.contains("feedmerge_fetches_total{outcome=\"fetched\",code=\"2xx\"} 12\n"), "\(text)")
        #expect(text.contains("feedmerge_fetches_total{outcome=\"failed\",code=\"4xx\"} 1\n"))
        #expect(text.contains("feedmerge_entries_stored_total 36\n"))
        #expect(text.contains("feedmerge_fetches_total{outcome=\"failed\",code=\"none\"} 1\n"), "\(text)")
        #expect(text.contains("feedmerge_run_failed_feeds 2\n"))
        let version = await feedmergeVersionInTests()
        #expect(text.contains("feedmerge_build_info{version=\"\(version)\"} 1\n"))
        #expect(text.contains(#/feedmerge_last_run_timestamp_seconds 1\d{9}/#))
        // Where it cannot be written, the run says so and the exit status says an output is missing.
        let blocked = try await CommandRun.feedmerge([
            list, "-o", w.path("merged.atom"), "--no-state", "--metrics", w.path("missing/feedmerge.prom"),
        ])
        #expect(blocked.status == 4 || blocked.standardError.contains("--metrics"), "\(blocked.standardError)")
        #expect(blocked.standardError.contains("--metrics"), "\(blocked.standardError)")
    }
}

/// The version the built binary reports (its `--version`).
func feedmergeVersionInTests() async -> String {
    let run = try? await CommandRun.feedmerge(["--version"])
    return run?.standardOutput.split(separator: " ").dropFirst().first.map(String.init) ?? "?"
}

/// What the operations tests share: HTTP, JSON lines, a Prometheus server.
enum Operations {
    static var rfc3339: Regex<Substring> { #/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/# }

    static func get(_ url: String) async throws -> (status: Int, body: String) {
        let (data, response) = try await URLSession.shared.data(from: URL(string: url)!)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    static func jsonLines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    static func wait(
        upTo seconds: Double, every interval: Duration = .milliseconds(200), until condition: () async throws -> Bool
    ) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while try await !condition(), Date() < deadline { try await Task.sleep(for: interval) }
    }

    /// Debian's Prometheus server on 127.0.0.1, scraping one target every second.
    final class Prometheus: Sendable {
        let process: ChildProcess
        let port: Int
        let folder: String

        init(scraping target: String, in w: StateTests.Workspace) throws {
            guard let binary = ExternalProgram("prometheus") else {
                throw POSIXError(.ENOENT, userInfo: [NSLocalizedDescriptionKey: "prometheus is not installed"])
            }
            folder = w.path("prometheus")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let config = """
                global:
                  scrape_interval: 1s
                  evaluation_interval: 1s
                scrape_configs:
                  - job_name: feedmerge
                    static_configs:
                      - targets: ["\(target)"]
                """
            try config.write(toFile: folder + "/prometheus.yml", atomically: true, encoding: .utf8)
            port = Self.freePort()
            process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: binary.path)
            process.arguments = [
                "--config.file=\(folder)/prometheus.yml", "--storage.tsdb.path=\(folder)/data",
                "--web.listen-address=127.0.0.1:\(port)",
            ]
            _ = FileManager.default.createFile(atPath: folder + "/log", contents: nil)
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: folder + "/log"))
            process.standardOutput = FileHandle.nullDevice
            try process.run()
        }

        /// Ends the server and waits for its end without holding a thread of Swift's cooperative pool.
        func stop() async {
            process.terminate()
            await process.exited()
        }

        /// Runs `body`, then stops the server whatever `body` did (a synchronous test's
        /// `defer { stop() }`, for an async one).
        func stopping<Value>(_ body: () async throws -> Value) async rethrows -> Value {
            do {
                let value = try await body()
                await stop()
                return value
            } catch {
                await stop()
                throw error
            }
        }

        func log() -> String { (try? String(contentsOfFile: folder + "/log", encoding: .utf8)) ?? "" }

        /// The first sample's value of an instant query, or nil.
        func query(_ expression: String) async -> String? {
            var components = URLComponents(string: "http://127.0.0.1:\(port)/api/v1/query")!
            components.queryItems = [URLQueryItem(name: "query", value: expression)]
            guard let (data, _) = try? await URLSession.shared.data(from: components.url!),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let result = (object["data"] as? [String: Any])?["result"] as? [[String: Any]],
                let value = result.first?["value"] as? [Any], value.count == 2
            else { return nil }
            return value[1] as? String
        }

        /// A port nothing listens on now (bound, read, closed).
        static func freePort() -> Int {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
            }
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            return Int(UInt16(bigEndian: address.sin_port))
        }
    }
}
