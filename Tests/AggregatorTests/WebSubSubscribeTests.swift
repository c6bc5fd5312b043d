import Basics
import FeedFetch
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The subscriber's side of WebSub, with real parts: a worker on PostgreSQL subscribes, through
/// the real flask-websub hub (Server/websub_server.py), to a feed whose site names the hub; the
/// hub verifies the worker's intent at its callback; a publish ping makes the hub deliver the
/// changed feed, signed, and the worker stores it at once without asking the site, and schedules
/// its next poll no sooner than its backstop. A delivery with a forged signature is dropped.
@Suite(.serialized) struct WebSubSubscribeTests {
    static let now = "2025-01-10T00:00:00Z"

    /// A loopback port nothing listens on now.
    static func freePort() throws -> Int {
        let socket = try ListeningSocket(listening: "127.0.0.1:0")
        close(socket.descriptor)
        return try #require(Int(socket.address.split(separator: ":").last ?? ""))
    }

    @Test func aWorkerStoresWhatTheRealHubPushesAndPollsTheFeedOnlyAsABackstop() async throws {
        let site = try WebSubPublishTests.Site("subscriber")
        defer { try? FileManager.default.removeItem(at: site.folder) }
        let w = try StateTests.Workspace("websub-subscriber")
        let state = PostgreSQLServer.shared.database()
        try site.write(["first"])
        let feed = site.servers.url("/files" + site.source, port: 1)
        let list = feed
        let port = try Self.freePort()
        let callback = "http://127.0.0.1:\(port)/websub"

        let worker = Process()
        worker.executableURL = CommandRun.binary
        worker.arguments = [
            "worker", list, "--state", state, "--name", "pushed", "--now", Self.now, "--host-spacing", "0",
            "--websub-callback", callback, "--websub-listen", "127.0.0.1:\(port)", "--websub-backstop", "43200",
        ]
        _ = FileManager.default.createFile(atPath: w.path("pushed.err"), contents: nil)
        worker.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: w.path("pushed.err")))
        worker.standardOutput = FileHandle.nullDevice
        try worker.run()
        defer { if worker.isRunning { kill(worker.processIdentifier, SIGKILL) } }
        func said() -> String { HostsServer.said(w, "pushed") }

        // Fetched once, then subscribed through the hub, which verified the intent at the callback.
        try await Operations.wait(upTo: 60) { said().contains("websub: \(feed) subscribed") }
        #expect(said().contains("websub: \(feed) subscribed (\(site.hub), "), "\(said())")
        let workerAgents = try await site.agents(fetching: site.source).filter { $0.hasPrefix("feedmerge/") }
        #expect(workerAgents.count == 1, "the worker fetched the feed once: \(workerAgents)")

        // The feed changes; its publisher pings the hub, which fetches it and pushes it to the worker.
        try site.write(["second", "first"])
        var ping = FetchRequest(url: site.hub)
        ping.formBody = FetchRequest.form([("hub.mode", "publish"), ("hub.url", feed), ("hub.topic", feed)])
        let pinged = ContinuousClock.now
        #expect(try await HTTPClient().fetch(ping).status / 100 == 2)
        try await Operations.wait(upTo: 10, every: .milliseconds(20)) { said().contains("websub: 1 pushed feeds") }
        let storedAfter = ContinuousClock.now - pinged
        // Within a second of the delivery's arrival at the callback, by the worker's own count (the
        // hub's fetch and delivery before it are the hub's; both are in the message).
        let line = try #require(
            said().split(separator: "\n").first { $0.contains("websub: 1 pushed feeds stored (within ") })
        let milliseconds = try #require(Int(line.split(separator: "within ")[1].prefix { $0.isNumber }))
        #expect(milliseconds < 1_000, "stored \(milliseconds) ms after the delivery, \(storedAfter) after the ping")
        #expect(
            line.hasSuffix("0 fetched again after a delivery this process could not check; 0 not stored"), "\(line)")
        let rendered = try CommandRun.feedmerge([
            "render", "--state", state, list, "-o", w.path("out.atom"), "--now", Self.now,
        ])
        #expect(rendered.status == 0, "\(rendered.standardError)")
        let output = try String(contentsOfFile: w.path("out.atom"), encoding: .utf8)
        #expect(output.contains(">second</title>") && output.contains(">first</title>"), "\(output)")
        // Not asked of the site: the push was the fetch.
        let agents = try await site.agents(fetching: site.source).filter { $0.hasPrefix("feedmerge/") }
        #expect(agents.count == 1, "the worker asked the site again: \(agents)")
        // Its next poll is the backstop's: 12 hours on, not the hour a fetched feed would wait.
        let nextCheck = try PostgreSQLServer.psql(
            state, "SELECT next_check FROM feeds WHERE url = '\(feed)'"
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        let expected: Int64 = 1_736_467_200 + 43_200  // --now, and the backstop
        #expect(Int64(nextCheck).map { $0 >= expected } == true, "next_check \(nextCheck), at least \(expected)")

        // A delivery whose signature is not the subscription's is dropped.
        try site.write(["forged", "second", "first"])
        let body = try Data(contentsOf: URL(fileURLWithPath: site.source))
        var forged = URLRequest(
            url: URL(string: callback + "/" + Self.base64URL(feed))!)
        forged.httpMethod = "POST"
        forged.httpBody = body
        forged.setValue("application/atom+xml", forHTTPHeaderField: "Content-Type")
        forged.setValue("sha256=" + String(repeating: "0", count: 64), forHTTPHeaderField: "X-Hub-Signature")
        let (_, answer) = try await URLSession.shared.data(for: forged)
        #expect((answer as? HTTPURLResponse)?.statusCode == 202)
        try await Operations.wait(upTo: 10) { said().contains("websub: a delivery for \(feed) dropped") }
        #expect(said().contains("X-Hub-Signature does not match"), "\(said())")
        let again = try CommandRun.feedmerge([
            "render", "--state", state, list, "-o", w.path("again.atom"), "--now", Self.now,
        ])
        #expect(again.status == 0)
        #expect(!(try String(contentsOfFile: w.path("again.atom"), encoding: .utf8)).contains("forged"))

        kill(worker.processIdentifier, SIGTERM)
        worker.waitUntilExit()
        #expect(worker.terminationStatus == 0, "\(said())")
    }

    static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
