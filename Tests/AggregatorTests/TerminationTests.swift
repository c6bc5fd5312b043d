import Foundation
import TestSupport
import Testing

/// SIGTERM or SIGINT mid-run: the process ends at once, with 128 + the
/// signal, its temporary files removed and the previous outputs untouched.
@Suite struct TerminationTests {
    let server = PlanetServer.shared

    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalEndsTheRunAndLeavesNoTemporaryFile(signal: Int32) async throws {
        let w = try StateTests.Workspace("termination-\(signal)")
        try "the previous feed".write(toFile: w.path("out.atom"), atomically: true, encoding: .utf8)
        let process = ChildProcess()
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
        let folder = w.path(".")
        @Sendable func temporaries() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains(".tmp-") }
        }
        // Polled, and the signal sent, on a thread of its own: a suspended task may wait for a busy
        // pool far longer than the run lasts, and a blocked pool thread would stall other suites.
        let (reserved, sent) = try await OwnThread.run("poll the reservations") {
            while try temporaries().count < 3, Date() < deadline { usleep(20_000) }
            let reserved = try temporaries().count
            usleep(300_000)  // the hanging feed is being fetched
            let sent = Date()
            kill(process.processIdentifier, signal)
            return (reserved, sent)
        }
        #expect(reserved == 3, "the run reserved its outputs")
        await process.exited()
        // The moment the run's end was seen, not when this task ran again.
        let ended = try #require(process.endTime)
        #expect(ended.timeIntervalSince(sent) < 5, "it stopped at once")
        #expect(process.terminationReason == .exit && process.terminationStatus == 128 + signal)
        let said = String(decoding: await errors.fileHandleForReading.readToEndOffPool(), as: UTF8.self)
        #expect(said.contains("stopped by SIG"), "\(said)")
        let left = try temporaries()
        #expect(left.isEmpty, "\(left)")
        #expect(try String(contentsOfFile: w.path("out.atom"), encoding: .utf8) == "the previous feed")
        #expect(!FileManager.default.fileExists(atPath: w.path("index.html")))
        // The state is not held: the next run goes ahead.
        let next = try await CommandRun.feedmerge([server.url("/feed/1"), "-o", w.path("out.atom"), "--state", w.state])
        #expect(next.status == 0, "\(next.standardError)")
    }
}
