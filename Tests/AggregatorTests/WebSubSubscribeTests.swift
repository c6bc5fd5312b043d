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
        let state = await PostgreSQLServer.shared.database()
        try site.write(["first"])
        let feed = site.servers.url("/files" + site.source, port: 1)
        let list = feed
        let port = try Self.freePort()
        let callback = "http://127.0.0.1:\(port)/websub"

        let worker = try Self.startWorker(
            w, name: "pushed", state: state, list: list, port: port, extra: ["--websub-backstop", "43200"])
        defer { if worker.isRunning { kill(worker.processIdentifier, SIGKILL) } }
        func said() -> String { HostsServer.said(w, "pushed") }

        // Fetched once, then subscribed through the hub, which verified the intent at the callback.
        try await Operations.wait(upTo: 60) { said().contains("websub: \(feed) subscribed") }
        #expect(said().contains("websub: \(feed) subscribed (\(site.hub), "), "\(said())")
        let workerAgents = try await site.agents(fetching: site.source).filter { $0.hasPrefix("feedmerge/") }
        #expect(workerAgents.count == 1, "the worker fetched the feed once: \(workerAgents)")

        // The feed changes; its publisher pings the hub, which fetches it and pushes it to the worker.
        try site.write(["second", "first"])
        let pinged = ContinuousClock.now
        try await Self.ping(site, feed)
        try await Operations.wait(upTo: 10, every: .milliseconds(20)) { said().contains("websub: 1 pushed feeds") }
        let storedAfter = ContinuousClock.now - pinged
        // Within a second of the delivery's arrival at the callback, by the worker's own count (the
        // hub's fetch and delivery before it are the hub's; both are in the message).
        let line = try #require(
            said().split(separator: "\n").first { $0.contains("websub: 1 pushed feeds stored (within ") })
        let milliseconds = try #require(Int(line.split(separator: "within ")[1].prefix { $0.isNumber }))
        // (Under a sanitizer the worker runs several times slower: `SanitizerRuntime.timeScale`.)
        #expect(
            Double(milliseconds) < 1_000 * SanitizerRuntime.timeScale,
            "stored \(milliseconds) ms after the delivery, \(storedAfter) after the ping")
        #expect(
            line.hasSuffix("0 fetched again after a delivery this process could not check; 0 not stored"), "\(line)")
        let rendered = try await CommandRun.feedmerge([
            "render", "--state", state, list, "-o", w.path("out.atom"), "--now", Self.now,
        ])
        #expect(rendered.status == 0, "\(rendered.standardError)")
        let output = try String(contentsOfFile: w.path("out.atom"), encoding: .utf8)
        #expect(output.contains(">second</title>") && output.contains(">first</title>"), "\(output)")
        // Not asked of the site: the push was the fetch.
        let agents = try await site.agents(fetching: site.source).filter { $0.hasPrefix("feedmerge/") }
        #expect(agents.count == 1, "the worker asked the site again: \(agents)")
        // Its next poll is the backstop's: 12 hours on, not the hour a fetched feed would wait.
        let nextCheck = try await PostgreSQLServer.psql(
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
        let again = try await CommandRun.feedmerge([
            "render", "--state", state, list, "-o", w.path("again.atom"), "--now", Self.now,
        ])
        #expect(again.status == 0)
        #expect(!(try String(contentsOfFile: w.path("again.atom"), encoding: .utf8)).contains("forged"))

        kill(worker.processIdentifier, SIGTERM)
        await worker.exited()
        #expect(worker.terminationStatus == 0, "\(said())")
    }

    /// A worker with a callback on `port` of 127.0.0.1, its standard error in NAME.err.
    static func startWorker(
        _ w: StateTests.Workspace, name: String, state: String, list: String, port: Int, now: String = now,
        extra: [String] = []
    ) throws -> ChildProcess {
        let worker = ChildProcess()
        worker.executableURL = CommandRun.binary
        worker.arguments =
            [
                "worker", list, "--state", state, "--name", name, "--now", now, "--host-spacing", "0",
                "--websub-callback", "http://127.0.0.1:\(port)/websub", "--websub-listen", "127.0.0.1:\(port)",
            ] + extra
        _ = FileManager.default.createFile(atPath: w.path("\(name).err"), contents: nil)
        worker.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: w.path("\(name).err")))
        worker.standardOutput = FileHandle.nullDevice
        try worker.run()
        return worker
    }

    /// The publisher's ping: the hub fetches the feed and delivers it before it answers.
    static func ping(_ site: WebSubPublishTests.Site, _ feed: String) async throws {
        var ping = FetchRequest(url: site.hub)
        ping.formBody = FetchRequest.form([("hub.mode", "publish"), ("hub.url", feed), ("hub.topic", feed)])
        #expect(try await HTTPClient().fetch(ping).status / 100 == 2)
    }

    static func stop(_ worker: ChildProcess) async {
        kill(worker.processIdentifier, SIGTERM)
        await worker.exited()
    }

    /// A worker started again has a new key: the first delivery of its predecessor's subscription
    /// cannot be checked, so the feed is fetched again and subscribed anew, and the next delivery is
    /// stored. A worker whose lists no longer name a feed answers its delivery 410 Gone, and the
    /// hub delivers it no more.
    @Test func aRestartedWorkerSubscribesAgainAndAFeedNoListNamesIsLetGo() async throws {
        let site = try WebSubPublishTests.Site("restart")
        defer { try? FileManager.default.removeItem(at: site.folder) }
        let w = try StateTests.Workspace("websub-restart")
        let state = await PostgreSQLServer.shared.database()
        try site.write(["first"])
        let feed = site.servers.url("/files" + site.source, port: 1)
        let other = site.folder.appendingPathComponent("other.atom")
        try Data(
            "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>O</title><id>urn:o</id></feed>".utf8
        ).write(to: other)
        let otherFeed = site.servers.url("/files" + other.path, port: 1)
        let port = try Self.freePort()
        func said(_ name: String) -> String { HostsServer.said(w, name) }

        let first = try Self.startWorker(w, name: "first", state: state, list: feed, port: port)
        defer { if first.isRunning { kill(first.processIdentifier, SIGKILL) } }
        try await Operations.wait(upTo: 60) { said("first").contains("websub: \(feed) subscribed") }
        await Self.stop(first)
        #expect(first.terminationStatus == 0, "\(said("first"))")

        let second = try Self.startWorker(w, name: "second", state: state, list: feed, port: port)
        defer { if second.isRunning { kill(second.processIdentifier, SIGKILL) } }
        try await Operations.wait(upTo: 60) { said("second").contains("nothing due") }
        try site.write(["second", "first"])
        try await Self.ping(site, feed)
        try await Operations.wait(upTo: 30) { said("second").contains("websub: \(feed) subscribed") }
        #expect(
            said("second").contains("0 pushed feeds stored")
                && said("second").contains("1 fetched again after a delivery this process could not check"),
            "\(said("second"))")
        try site.write(["third", "second", "first"])
        try await Self.ping(site, feed)
        try await Operations.wait(upTo: 30) { said("second").contains("websub: 1 pushed feeds stored") }
        let rendered = try await CommandRun.feedmerge([
            "render", "--state", state, feed, "-o", w.path("out.atom"), "--now", Self.now,
        ])
        #expect(rendered.status == 0, "\(rendered.standardError)")
        #expect(
            try String(contentsOfFile: w.path("out.atom"), encoding: .utf8).contains(">third</title>"),
            "\(said("second"))")
        await Self.stop(second)

        // Three days on, a worker whose list names another feed only.
        let third = try Self.startWorker(
            w, name: "third", state: state, list: otherFeed, port: port, now: "2025-01-13T00:00:00Z")
        defer { if third.isRunning { kill(third.processIdentifier, SIGKILL) } }
        try await Operations.wait(upTo: 60) { said("third").contains("websub: \(otherFeed) subscribed") }
        try site.write(["fourth", "third", "second", "first"])
        try await Self.ping(site, feed)
        try await Self.ping(site, feed)
        try await Operations.wait(upTo: 10) { said("third").contains("410 Gone") }
        let gone =
            said("third").components(separatedBy: "websub: \(feed): a delivery for a feed no list names").count - 1
        #expect(gone == 1, "delivered once, then no more: \(said("third"))")
        await Self.stop(third)
        #expect(third.terminationStatus == 0, "\(said("third"))")
    }

    static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
