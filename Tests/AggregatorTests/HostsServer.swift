import FeedFetch
import Foundation
import TestSupport

/// Server/hosts_server.py for the shared-state tests: each port of
/// 127.0.0.1 a host, counting every request and the most requests each host
/// had in flight at once; and the workers those tests start against it.
/// A suite that counts requests has a server of its own (suites run at once).
struct HostsServer {
    /// Started synchronously: a `HostsServer` is only made by a suite's `static let hosts`, a lazy
    /// initializer, which cannot await `LocalServer.start`'s async overload.
    let server = LocalServer.start(
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Server/hosts_server.py"))
    static let now = "2024-02-01T00:00:00Z"

    /// An OPML of `count` feeds (numbered from `first`) spread over the first `hosts` hosts, written
    /// into the workspace; `delay`: each answered after that many seconds; `etag`: each with an
    /// ETag, and a conditional GET naming it answered 304.
    func list(
        _ w: StateTests.Workspace, count: Int, hosts: Int = 50, first: Int = 0, name: String = "feeds.opml",
        delay: Double? = nil, etag: Bool = false
    ) throws -> String {
        let ports = server.ports.dropFirst().prefix(hosts)
        let asked = (delay.map { ["delay=\($0)"] } ?? []) + (etag ? ["etag=1"] : [])
        let query = asked.isEmpty ? "" : "?" + asked.joined(separator: "&amp;")
        let outlines = (first..<first + count).map { number in
            "<outline type=\"rss\" xmlUrl=\"http://127.0.0.1:\(ports[ports.startIndex + number % ports.count])/f/\(number).xml\(query)\"/>"
        }
        let opml =
            "<opml version=\"2.0\"><head><title>Shared</title></head><body>\n"
            + outlines.joined(separator: "\n") + "\n</body></opml>\n"
        try opml.write(toFile: w.path(name), atomically: true, encoding: .utf8)
        return w.path(name)
    }

    /// What the server counted: requests by "port/path", the most in flight by port.
    struct Counts: Decodable {
        var requests: [String: Int]
        var mostInFlight: [String: Int]
    }

    func counts(reset: Bool = false) async throws -> Counts {
        let response = try await HTTPClient().fetch(FetchRequest(url: server.url(reset ? "/reset" : "/stats", port: 0)))
        return try JSONDecoder().decode(Counts.self, from: Data(response.body))
    }

    /// Waits until the server has answered at least `count` requests.
    func waitForRequests(_ count: Int, timeout: TimeInterval = 60) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try await counts().requests.values.reduce(0, +) < count, Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// A worker started (not waited for), its standard error in a file of the workspace.
    static func startWorker(
        _ w: StateTests.Workspace, name: String, state: String, list: String, extra: [String] = []
    ) throws -> ChildProcess {
        let process = ChildProcess()
        process.executableURL = CommandRun.binary
        process
            .arguments  // The hosts are the test's own loopback ports: no spacing between requests (docs/politeness.md).
        =
            ["worker", list, "--state", state, "--name", name, "--now", now, "--per-host", "2", "--jobs", "16"]
            + ["--host-spacing", "0"]
            + extra
        _ = FileManager.default.createFile(atPath: w.path("\(name).err"), contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: w.path("\(name).err")))
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// What a worker started by `startWorker` has said so far.
    static func said(_ w: StateTests.Workspace, _ name: String) -> String {
        (try? String(contentsOfFile: w.path("\(name).err"), encoding: .utf8)) ?? ""
    }
}
