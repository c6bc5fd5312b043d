import FeedFetch
import FeedParse
import Foundation
import TestSupport
import Testing

/// The publisher's side of WebSub against a real hub on 127.0.0.1 (flask-websub, run by
/// Server/websub_server.py): the merged feeds name the hub and themselves, a run that changed
/// a feed pings the hub (which then fetches the feed from the site and delivers it to its
/// subscriber), a run that changed nothing does not, and a hub that cannot be reached is a
/// warning.
@Suite(.serialized) struct WebSubPublishTests {
    /// The hub, the site that serves the outputs' folder, a subscriber's callback.
    static let servers: LocalServer? = WebSubHub.python.map { python in
        LocalServer.start(
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "Server/websub_server.py"),
            python: python)
    }

    struct Site {
        var servers: LocalServer
        var folder: URL
        var hub: String { servers.url("/hub") }
        var publicURL: String { servers.url("/files" + folder.path + "/", port: 1) }
        func feed(_ name: String) -> String { publicURL + name }
        var source: String { folder.appendingPathComponent("source/feed.atom").path }

        init(_ name: String) throws {
            servers = try #require(WebSubPublishTests.servers, Comment(rawValue: WebSubHub.missing))
            folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "feedmerge-websub-\(getpid())-\(name)")
            try? FileManager.default.removeItem(at: folder)
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent("source"), withIntermediateDirectories: true)
        }

        /// The one source feed, with `titles` as its entries (the first the newest).
        func write(_ titles: [String]) throws {
            var entries = ""
            for (index, title) in titles.enumerated() {
                entries +=
                    "<entry><title>\(title)</title><id>urn:websub:\(title)</id>"
                    + "<updated>2025-01-0\(9 - index)T00:00:00Z</updated></entry>"
            }
            let feed =
                "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>Source</title><id>urn:websub:source</id>"
                + "<updated>2025-01-09T00:00:00Z</updated><author><name>A</name></author>\(entries)</feed>"
            try Data(feed.utf8).write(to: URL(fileURLWithPath: source))
        }

        func merge(hub: String? = nil, extra: [String] = []) async throws -> CommandRun {
            try await CommandRun.feedmerge(
                [
                    source, "-o", folder.appendingPathComponent("merged.atom").path,
                    "-o", folder.appendingPathComponent("merged.rss").path,
                    "-o", folder.appendingPathComponent("merged.json").path,
                    "--link", "http://planet.example/", "--public-url", publicURL, "--hub", hub ?? self.hub,
                    "--no-state", "--now", "2025-01-10T00:00:00Z", "--timeout", "5",
                ] + extra)
        }

        func json(_ path: String, port: Int) async throws -> Any {
            let response = try await HTTPClient().fetch(FetchRequest(url: servers.url(path, port: port)))
            return try JSONSerialization.jsonObject(with: Data(response.body))
        }

        /// The topics the hub was asked to publish, in order.
        func published() async throws -> [String] {
            let log = try #require(try await json("/_log", port: 0) as? [String: [String]])
            return (log["publish"] ?? []).filter { $0.hasPrefix(publicURL) }
        }

        /// The site's paths the hub fetched.
        func fetched() async throws -> [String] {
            let log = try #require(try await json("/_log", port: 1) as? [String: Any])
            return (log["fetched"] as? [String] ?? []).filter { $0.hasPrefix(folder.path + "/") }
        }

        /// The User-Agents that fetched the site's file at `path`, in order.
        func agents(fetching path: String) async throws -> [String] {
            let log = try #require(try await json("/_log", port: 1) as? [String: Any])
            return (log["agents"] as? [[String]] ?? []).filter { $0.first == path }.map { $0.last ?? "" }
        }

        /// What the hub delivered to the subscriber named `name`.
        func delivered(to name: String) async throws -> [[String: String?]] {
            try #require(try await json("/_log/\(name)", port: 2) as? [[String: String?]])
        }

        /// Subscribes the test's subscriber to `topic` at the hub, which verifies its intent first.
        func subscribe(_ name: String, to topic: String) async throws {
            var request = FetchRequest(url: hub)
            request.formBody = FetchRequest.form([
                ("hub.mode", "subscribe"), ("hub.topic", topic), ("hub.callback", servers.url("/cb/\(name)", port: 2)),
                ("hub.secret", "a secret"), ("hub.lease_seconds", "600"),
            ])
            let response = try await HTTPClient().fetch(request)
            #expect(response.status == 202)
        }
    }

    @Test func aChangedRunPingsTheRealHubAndAnUnchangedRunDoesNot() async throws {
        let site = try Site("ping")
        defer { try? FileManager.default.removeItem(at: site.folder) }
        let subscriber = "ping-\(getpid())"
        try await site.subscribe(subscriber, to: site.feed("merged.atom"))
        try site.write(["first"])

        let first = try await site.merge()
        #expect(first.status == 0, "\(first.standardError)")
        let feeds = ["merged.atom", "merged.rss", "merged.json"].map(site.feed)
        #expect(Set(try await site.published()) == Set(feeds))
        #expect(try await site.published().count == 3)
        // The hub fetched each feed from the site and delivered the Atom one, signed, to its subscriber.
        #expect(
            Set(try await site.fetched())
                == Set(
                    ["merged.atom", "merged.rss", "merged.json"].map {
                        site.folder.appendingPathComponent($0).path
                    }))
        let atom = String(
            decoding: try Data(contentsOf: site.folder.appendingPathComponent("merged.atom")), as: UTF8.self)
        var deliveries = try await site.delivered(to: subscriber)
        #expect(deliveries.count == 1)
        #expect(deliveries.first?["body"] == atom)
        #expect(deliveries.first?["signature"]??.hasPrefix("sha256=") == true)

        let unchanged = try await site.merge()
        #expect(unchanged.status == 0, "\(unchanged.standardError)")
        #expect(try await site.published().count == 3, "an unchanged run pinged the hub")
        #expect(try await site.fetched().count == 3)
        #expect(try await site.delivered(to: subscriber).count == 1)

        try site.write(["second", "first"])
        let changed = try await site.merge()
        #expect(changed.status == 0, "\(changed.standardError)")
        #expect(try await site.published().count == 6)
        deliveries = try await site.delivered(to: subscriber)
        #expect(deliveries.count == 2)
        #expect(deliveries.last?["body"]??.contains("second") == true)
    }

    @Test func theMergedFeedsNameTheHubAndTheirOwnAddresses() async throws {
        let site = try Site("links")
        defer { try? FileManager.default.removeItem(at: site.folder) }
        try site.write(["one"])
        let run = try await site.merge()
        #expect(run.status == 0, "\(run.standardError)")
        for name in ["merged.atom", "merged.rss", "merged.json"] {
            let bytes = [UInt8](try Data(contentsOf: site.folder.appendingPathComponent(name)))
            let text = String(decoding: bytes, as: UTF8.self)
            switch name {
            case "merged.json":
                let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
                #expect(object["feed_url"] as? String == site.feed(name))
                #expect(object["hubs"] as? [[String: String]] == [["type": "WebSub", "url": site.hub]])
            default:
                #expect(text.contains("rel=\"hub\" href=\"\(site.hub)\""), "\(name)")
                #expect(text.contains("href=\"\(site.feed(name))\""), "\(name)")
            }
            // What a subscriber discovers (the parse of the feed's own self link).
            #expect(try FeedParser.parse(bytes).metadata.selfLink == site.feed(name), "\(name)")
        }
    }

    @Test func aHubThatCannotBeReachedIsAWarningAndTheOutputsStay() async throws {
        let site = try Site("unreachable")
        defer { try? FileManager.default.removeItem(at: site.folder) }
        try site.write(["one"])
        // A port of the site that answers 404 to the hub's POST, a closed port, and a redirect to the
        // real hub, which is not followed (a POST redirected would be sent again as a GET).
        let refusing = site.servers.url("/nothing", port: 1)
        let moved = site.servers.url("/moved")
        let run = try await site.merge(hub: refusing, extra: ["--hub", "http://127.0.0.1:1/", "--hub", moved])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("warning: the hub \(moved) was not told of"))
        #expect(try await site.published().isEmpty)
        #expect(run.standardError.contains("warning: the hub \(refusing) was not told of \(site.feed("merged.atom"))"))
        #expect(run.standardError.contains("warning: the hub http://127.0.0.1:1/ was not told of"))
        for name in ["merged.atom", "merged.rss", "merged.json"] {
            #expect(FileManager.default.fileExists(atPath: site.folder.appendingPathComponent(name).path))
        }
    }

    static let venus = SharedCorpora.path("venus")?.path ?? ""

    /// Venus's `pubsubhubbub_hub` with its asf theme: the theme's Atom names the hub, and the hub
    /// is told of `atom.xml` (the one file of `pubsubhubbub_feeds` the theme writes), at `link`
    /// joined with its name, after a run that changed it only.
    @Test(
        .tags(.corpus),
        .enabled(if: FileManager.default.fileExists(atPath: venus + "/themes"), "needs ../shared/corpora/venus"))
    func aVenusPlanetPingsItsHubAsVenusDoes() async throws {
        let site = try Site("planet")
        defer { try? FileManager.default.removeItem(at: site.folder) }
        try site.write(["one"])
        let configuration = """
            [Planet]
            name = Hubbed
            link = \(site.publicURL)www/
            pubsubhubbub_hub = \(site.hub)
            cache_directory = \(site.folder.path)/cache
            output_dir = \(site.folder.path)/www
            output_theme = asf

            [\(site.source)]
            name = Source

            """
        let config = site.folder.appendingPathComponent("config.ini")
        try Data(configuration.utf8).write(to: config)
        let atom = site.publicURL + "www/atom.xml"
        func run(_ now: String) async throws {
            let run = try await CommandRun.feedmerge([
                "planet", "--venus", Self.venus, "--no-state", "--now", now, config.path,
            ])
            #expect(run.status == 0, "\(run.standardError)")
        }
        try await run("2025-01-10T00:00:00Z")
        #expect(try await site.published() == [atom])
        let written = try String(contentsOf: site.folder.appendingPathComponent("www/atom.xml"), encoding: .utf8)
        #expect(written.contains("rel=\"hub\" href=\"\(site.hub)\""))
        try await run("2025-01-10T00:00:00Z")
        #expect(try await site.published() == [atom], "an unchanged planet pinged its hub")
        try site.write(["two", "one"])
        try await run("2025-01-10T00:00:00Z")
        #expect(try await site.published() == [atom, atom])
    }

    /// A theme describes only itself: its configuration cannot name a hub that feedmerge then sends requests to.
    @Test func aThemesHubIsNotTold() async throws {
        let site = try Site("theme")
        defer { try? FileManager.default.removeItem(at: site.folder) }
        try site.write(["one"])
        let theme = site.folder.appendingPathComponent("theme")
        try FileManager.default.createDirectory(at: theme, withIntermediateDirectories: true)
        try Data("<feed><TMPL_LOOP Items><title><TMPL_VAR title></title></TMPL_LOOP></feed>\n".utf8).write(
            to: theme.appendingPathComponent("atom.xml.tmpl"))
        try Data("[Planet]\ntemplate_files = atom.xml.tmpl\npubsubhubbub_hub = \(site.hub)\n".utf8).write(
            to: theme.appendingPathComponent("config.ini"))
        let configuration = """
            [Planet]
            name = Themed
            link = \(site.publicURL)www/
            cache_directory = \(site.folder.path)/cache
            output_dir = \(site.folder.path)/www
            output_theme = \(theme.path)

            [\(site.source)]
            name = Source

            """
        let config = site.folder.appendingPathComponent("config.ini")
        try Data(configuration.utf8).write(to: config)
        let run = try await CommandRun.feedmerge(["planet", "--now", "2025-01-10T00:00:00Z", config.path])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("pubsubhubbub_hub is not used"), "\(run.standardError)")
        #expect(FileManager.default.fileExists(atPath: site.folder.appendingPathComponent("www/atom.xml").path))
        #expect(try await site.published().isEmpty)
    }

    @Test func aHubNeedsTheFeedsPublicAddress() async throws {
        let run = try await CommandRun.feedmerge(["feed.atom", "-o", "out.atom", "--hub", "https://hub.example/"])
        #expect(run.status == 2)
        #expect(run.standardError.contains("--hub needs the feeds' public address"))
        let bad = try await CommandRun.feedmerge(["feed.atom", "-o", "out.atom", "--hub", "file:///hub"])
        #expect(bad.status == 2)
        #expect(bad.standardError.contains("--hub file:///hub is not an http or https URL"))
    }
}
