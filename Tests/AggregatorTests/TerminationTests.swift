import Foundation
import Testing

/// SIGTERM or SIGINT mid-run: the process ends at once, with 128 + the
/// signal, its temporary files removed and the previous outputs untouched.
@Suite struct TerminationTests {
    let server = PlanetServer.shared

    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalEndsTheRunAndLeavesNoTemporaryFile(signal: Int32) throws {
        let w = try StateTests.Workspace("termination-\(signal)")
        try "the previous feed".write(toFile: w.path("out.atom"), atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = CommandRun.binary
        // A feed that never answers keeps the run going.
        process.arguments = [
            server.url("/feed/1"), server.url("/broken/hang"), "-o", w.path("out.atom"), "-o", w.path("index.html"),
            "--health", w.path("health.json"), "--state", w.state,
        ]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        // Wait for the reservations (temporary files beside the outputs): on a loaded machine, or
        // under a sanitizer, the process may take seconds to get there; the feed that never
        // answers then keeps it running for 20 s more.
        let deadline = Date().addingTimeInterval(60)
        func temporaries() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: w.path(".")).filter { $0.contains(".tmp-") }
        }
        // Polled on this thread (a suspended task may wait for a busy pool far longer than the run lasts).
        while try temporaries().count < 3, Date() < deadline { usleep(20_000) }
        #expect(try temporaries().count == 3, "the run reserved its outputs")
        usleep(300_000)  // the hanging feed is being fetched
        let sent = Date()
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(Date().timeIntervalSince(sent) < 5, "it stopped at once")
        #expect(process.terminationReason == .exit && process.terminationStatus == 128 + signal)
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(said.contains("stopped by SIG"), "\(said)")
        let left = try temporaries()
        #expect(left.isEmpty, "\(left)")
        #expect(try String(contentsOfFile: w.path("out.atom"), encoding: .utf8) == "the previous feed")
        #expect(!FileManager.default.fileExists(atPath: w.path("index.html")))
        // The state is not held: the next run goes ahead.
        let next = try CommandRun.feedmerge([server.url("/feed/1"), "-o", w.path("out.atom"), "--state", w.state])
        #expect(next.status == 0, "\(next.standardError)")
    }
}
