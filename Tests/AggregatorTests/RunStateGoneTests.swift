import Foundation
import TestSupport
import Testing

/// A run whose PostgreSQL server goes away after it read the feeds'
/// records, a real server stopped while the run's conditional GETs are out.
@Suite(.serialized) struct RunStateGoneTests {
    static let hosts = HostsServer()

    /// The feeds answer 304, so their entries are the state's, which the run can no longer read:
    /// outputs written now would lack them. It writes nothing: the feed, the page and the health
    /// report stay byte for byte as the run before wrote them (a later `--now` would change each),
    /// it says why, and it ends with 74, the state unusable.
    @Test func aRunThatCannotReadTheEntriesOfIts304sWritesNothing() async throws {
        let postgres = try PostgreSQLServer.dedicated()
        let w = try StateTests.Workspace("run-state-gone")
        let state = await postgres.database()
        // Each answer comes 8 s after its request: time enough to stop the server between the two,
        // under a sanitizer too (2 s was not), and well within the run's --timeout.
        let list = try Self.hosts.list(w, count: 6, hosts: 3, delay: 8, etag: true)
        let outputs = ["feed.json", "page.html", "health.json"].map(w.path)
        let run = [
            list, "--state", state, "-o", outputs[0], "-o", outputs[1], "--health", outputs[2], "--timeout", "60",
        ]
        let first = try await CommandRun.feedmerge(run + ["--now", "2024-02-01T00:00:00Z", "-q"])
        #expect(first.status == 0, "\(first.standardError)")
        let before = try outputs.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        #expect(try JSONSerialization.jsonObject(with: before[0]) is [String: Any])

        let asked = try await Self.hosts.counts().requests.values.reduce(0, +)
        let (status, said) = try await postgres.startingAfter {
            let second = ChildProcess()
            second.executableURL = CommandRun.binary
            second.arguments = run + ["--now", "2024-02-02T00:00:00Z"]
            _ = FileManager.default.createFile(atPath: w.path("second.err"), contents: nil)
            second.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: w.path("second.err")))
            second.standardOutput = FileHandle.nullDevice
            try second.run()
            // Its six conditional GETs are out (their records were read): the server goes away
            // before their 304s come back.
            try await Self.hosts.waitForRequests(asked + 6)
            await postgres.stop()
            let status = await second.exited()
            return (status, try String(contentsOfFile: w.path("second.err"), encoding: .utf8))
        }
        #expect(status == 74, "\(said)")
        #expect(said.contains("its stored entries cannot be read and are left out"), "\(said)")
        #expect(said.contains("nothing was written, the outputs and --health are as they were"), "\(said)")
        for (path, bytes) in zip(outputs, before) {
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "\(path) as it was")
        }
        let requests = try await Self.hosts.counts().requests
        #expect(requests.values.reduce(0, +) == asked + 6, "each feed asked once more")
    }
}
