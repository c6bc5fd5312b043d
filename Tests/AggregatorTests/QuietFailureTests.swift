import FeedFetch
import Foundation
import Testing

/// With `--quiet`, cron mails what a run says: a feed that fails for weeks
/// is said when it starts failing, once a day while it fails, and when it recovers.
@Suite(.serialized) struct QuietFailureTests {
    let server = PlanetServer.state

    func control(_ path: String) async throws {
        _ = try await HTTPClient().fetch(FetchRequest(url: server.url(path)))
    }

    @Test func aFailingFeedIsSaidWhenItStartsOnceADayAndWhenItRecovers() async throws {
        let w = try StateTests.Workspace("quiet-failures")
        let feeds = [server.url("/feed/quietfail"), server.url("/feed/quietok")]
        func run(_ now: String) async throws -> String {
            let run = try await CommandRun.feedmerge(
                feeds + ["-o", w.path("out.atom"), "--state", w.state, "--now", now, "--quiet", "--fetch-all"])
            return run.standardError
        }
        try await control("/set/quietfail/ok")
        #expect(try await run("2024-03-01T00:00:00Z") == "")
        try await control("/set/quietfail/fail")
        defer { Task { try? await control("/set/quietfail/ok") } }
        let failing = "failed: \(server.url("/feed/quietfail"))"
        #expect(try await run("2024-03-01T01:00:00Z").contains(failing), "said when it starts failing")
        #expect(try await run("2024-03-01T02:00:00Z") == "", "not again the same day")
        #expect(try await run("2024-03-01T23:30:00Z") == "")
        let nextDay = try await run("2024-03-02T01:30:00Z")
        #expect(nextDay.contains(failing) && nextDay.contains("(failing since 2024-03-01)"), "\(nextDay)")
        #expect(try await run("2024-03-02T02:00:00Z") == "")
        try await control("/set/quietfail/ok")
        #expect(try await run("2024-03-02T03:00:00Z").contains("recovered: \(server.url("/feed/quietfail"))"))
        #expect(try await run("2024-03-02T04:00:00Z") == "")
        // Without --quiet, every run says it.
        try await control("/set/quietfail/fail")
        let loud = try await CommandRun.feedmerge(
            feeds + ["-o", w.path("out.atom"), "--state", w.state, "--now", "2024-03-02T05:00:00Z", "--fetch-all"])
        let again = try await CommandRun.feedmerge(
            feeds + ["-o", w.path("out.atom"), "--state", w.state, "--now", "2024-03-02T05:30:00Z", "--fetch-all"])
        #expect(loud.standardError.contains(failing) && again.standardError.contains(failing), "\(again.standardError)")
    }
}
