import Basics
import Foundation
import TestSupport
import Testing

@testable import Commands
@testable import PlanetPage

/// `feedmerge render` serves the state's feeds a part at a time
/// (`MergeRun.RenderSizes`: 10,000, here 7) into one timeline, and writes
/// the health report as it goes: what it writes is what one pass over the
/// list writes. Rendered in this process, with parts small enough to cross
/// with a few feeds.
@Suite(.serialized) struct RenderInPartsTests {
    /// Several parts' worth; every entry dated alike, so that their order
    /// in the merged feed is the subscriptions' order, across the parts too.
    static let feeds = 50
    static let hosts = HostsServer()

    @Test
    func aRenderInPartsWritesWhatTheRunThatStoredTheFeedsWrote() async throws {
        let w = try StateTests.Workspace("render-in-parts")
        try Self.writeFeeds(w)
        let common = ["--now", "2024-02-01T00:00:00Z", "--state", w.state, "--limit", "0", "-q"]
        let run = try await CommandRun.feedmerge(
            [w.path("list.opml"), "-o", w.path("run.json"), "--health", w.path("run-health.json")] + common)
        #expect(run.status == 0, "\(run.standardError)")
        let released = Locked(0)
        #expect(
            try await render(
                [w.path("list.opml"), "-o", w.path("render.json"), "--health", w.path("render-health.json")] + common,
                sizes: .init(part: 7), released: released) == .success)
        // What each part freed is given back before the next (the allocator's pages).
        #expect(released.withLock { $0 } == (Self.feeds + 6) / 7)

        let ran = try jsonObject(w.path("run.json"))["items"] as? [[String: Any]] ?? []
        let rendered = try jsonObject(w.path("render.json"))["items"] as? [[String: Any]] ?? []
        #expect(rendered.count == Self.feeds)
        let expected = (0..<Self.feeds).map { "urn:feed:\($0):1" }
        // The first entry out of the list's order, if any (not the 10,050 ids).
        func firstMisplaced(_ items: [[String: Any]]) -> String? {
            zip(items, expected).enumerated().first { $0.element.0["id"] as? String != $0.element.1 }
                .map { "\($0.element.0["id"] ?? "-") at \($0.offset)" }
        }
        #expect(ran.count == Self.feeds && firstMisplaced(ran) == nil)
        #expect(firstMisplaced(rendered) == nil, "the parts' entries in the list's order")

        let health = try jsonObject(w.path("render-health.json"))["feeds"] as? [[String: Any]] ?? []
        #expect(health.map { $0["url"] as? String ?? "" } == (0..<Self.feeds).map { w.path("feed-\($0).xml") })
        #expect(health.allSatisfy { $0["status"] as? String == "ok" && $0["entries_stored"] as? Int == 1 })
    }

    /// A page of the default theme lists every subscription without its render holding them:
    /// its list is made as the parts are served (`MergeRun.PagesInParts`), and the page is byte
    /// for byte what the same theme makes of the whole planet document (a copy of it given as
    /// `--theme`, which reads the document whole). The names sort across the parts (ties in the
    /// order they came), the subscriptions' names differ from their feeds' titles (an entry
    /// names its feed by its subscription's: kept for the feeds the timeline holds), and one
    /// feed fails.
    @Test func aPageInPartsIsTheWholeDocumentsPage() async throws {
        let w = try StateTests.Workspace("render-page-in-parts")
        let names = ["beta", "Alpha", "alpha", "Same", "Émile", "zeta", "Same", "ALPHA", "Zoë", "_x"]
        try Self.writeFeeds(w, name: { names[$0 % names.count] }, hour: { $0 % 24 }, missing: 17)
        try Data(DefaultTheme.stylesheet.utf8).write(to: URL(fileURLWithPath: w.path("copy.xsl")))
        let common = [w.path("list.opml"), "--now", "2024-02-01T00:00:00Z", "--state", w.state, "--limit", "20", "-q"]
        let run = try await CommandRun.feedmerge(common + ["-o", w.path("run.json")])
        #expect(run.status == 1, "\(run.standardError)")  // one feed failed
        let apart = try await render(common + ["-o", w.path("parts.html")], sizes: .init(part: 7))
        let whole = try await render(
            common + ["--theme", w.path("copy.xsl"), "-o", w.path("whole.html")], sizes: .init(part: 7))
        #expect(apart == .someFeedsFailed && whole == .someFeedsFailed)
        let parts = try String(contentsOfFile: w.path("parts.html"), encoding: .utf8)
        let wholePage = try String(contentsOfFile: w.path("whole.html"), encoding: .utf8)
        #expect(parts.components(separatedBy: "<li class=").count - 1 == Self.feeds)
        #expect(parts.contains("<li class=\"failing\">"))
        #expect(parts.contains(">Émile</a>"))
        #expect(parts == wholePage)
        // Made in parts only where the default theme's page is written as HTML.
        func madeInParts(_ arguments: [String]) throws -> Bool {
            guard case .run(let options) = try RenderCommand.parse(common + arguments) else { return false }
            return MergeRun.PagesInParts(try MergeRun(options: options, environment: [:])) != nil
        }
        #expect(try madeInParts(["-o", w.path("parts.html")]))
        #expect(try !madeInParts(["--theme", w.path("copy.xsl"), "-o", w.path("whole.html")]))
        #expect(try !madeInParts(["-o", w.path("page.xml"), "--format", "html"]))
    }

    /// Without SOURCE, the feeds a PostgreSQL state lists are read a page at a time: a render
    /// holding 3 feeds at a time and reading 7 listed feeds at a time writes the bytes a render
    /// holding them all writes.
    @Test func aRenderWithoutSourceReadsTheListedFeedsAPageAtATime() async throws {
        let w = try StateTests.Workspace("render-in-pages")
        let state = await PostgreSQLServer.shared.database()
        let list = try Self.hosts.list(w, count: 20, hosts: 5)
        let run = try await CommandRun.feedmerge([
            list, "--state", state, "--now", HostsServer.now, "-o", w.path("run.json"), "-q",
        ])
        #expect(run.status == 0, "\(run.standardError)")
        let render = ["--state", state, "--now", "2024-02-01T01:00:00Z", "--limit", "0", "-q"]
        let whole = try await CommandRun.feedmerge(
            ["render"] + render + ["-o", w.path("whole.json"), "--health", w.path("whole-health.json")])
        #expect(whole.status == 0, "\(whole.standardError)")
        #expect(
            try await self.render(
                render + ["-o", w.path("paged.json"), "--health", w.path("paged-health.json")],
                sizes: .init(part: 3, listedPage: 7)) == .success)
        let health = try jsonObject(w.path("paged-health.json"))["feeds"] as? [[String: Any]] ?? []
        #expect(health.count == 20)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: w.path("paged-health.json")))
                == Data(contentsOf: URL(fileURLWithPath: w.path("whole-health.json"))))
        let items = try jsonObject(w.path("paged.json"))["items"] as? [Any] ?? []
        #expect(items.count == 60, "three entries of each feed")
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: w.path("paged.json")))
                == Data(contentsOf: URL(fileURLWithPath: w.path("whole.json"))))
    }

    /// A render whose PostgreSQL server stops after its first part (of 3 feeds of 20) writes
    /// nothing: the feed, the page and the health report an earlier render wrote stay byte for
    /// byte (a later `--now` would change each), and it ends with 74, the state unusable.
    @Test func aRenderWhoseStateGoesAwayWritesNothing() async throws {
        let postgres = try PostgreSQLServer.dedicated()
        let w = try StateTests.Workspace("render-state-gone")
        let state = await postgres.database()
        let list = try Self.hosts.list(w, count: 20, hosts: 5)
        let run = try await CommandRun.feedmerge([
            list, "--state", state, "--now", HostsServer.now, "-o", w.path("run.json"), "-q",
        ])
        #expect(run.status == 0, "\(run.standardError)")
        let outputs = ["feed.json", "page.html", "health.json"].map(w.path)
        let render = [
            "--state", state, "-o", outputs[0], "-o", outputs[1], "--health", outputs[2], "--limit", "0", "-q",
        ]
        let first = try await CommandRun.feedmerge(["render", "--now", "2024-02-01T01:00:00Z"] + render)
        #expect(first.status == 0, "\(first.standardError)")
        let before = try outputs.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }

        let parts = Locked(0)
        let status = try await postgres.startingAfter {
            try await self.render(
                ["--now", "2024-02-02T01:00:00Z"] + render, sizes: .init(part: 3, listedPage: 7),
                afterEachPart: {
                    if parts.withLock({
                        $0 += 1; return $0
                    }) == 1 {
                        postgres.stopHere()
                    }
                })
        }
        #expect(status == .stateUnusable)
        #expect(parts.withLock { $0 } == 2, "the render reads no further once the state failed it")
        for (path, bytes) in zip(outputs, before) {
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "\(path) as it was")
        }
    }

    /// `feeds` local feeds of one entry each, dated `hour(N)` o'clock on 2024-01-01, and
    /// `list.opml` naming feed N `name(N)` (feed `missing` listed, its file not written).
    static func writeFeeds(
        _ w: StateTests.Workspace, name: (Int) -> String = { "Feed \($0)" }, hour: (Int) -> Int = { _ in 0 },
        missing: Int? = nil
    ) throws {
        var outlines = ""
        for index in 0..<Self.feeds {
            let path = w.path("feed-\(index).xml")
            if index != missing {
                try Data(
                    """
                    <rss version="2.0"><channel><title>Feed \(index)</title><link>https://example.org/\(index)/</link>
                    <item><title>Entry \(index)</title><link>https://example.org/\(index)/1</link>
                    <guid>urn:feed:\(index):1</guid><pubDate>Mon, 01 Jan 2024 \(String(format: "%02d", hour(index))):00:00 GMT</pubDate></item>
                    </channel></rss>
                    """.utf8
                ).write(to: URL(fileURLWithPath: path))
            }
            outlines += "<outline type=\"rss\" text=\"\(name(index))\" xmlUrl=\"\(path)\"/>\n"
        }
        try Data(
            "<?xml version=\"1.0\"?><opml version=\"2.0\"><head><title>parts</title></head><body>\n\(outlines)</body></opml>\n"
                .utf8
        ).write(to: URL(fileURLWithPath: w.path("list.opml")))
    }

    /// `feedmerge render ARGUMENTS` run in this process, holding `sizes` of the state at a time.
    /// - Parameters:
    ///   - released: counts the times it gives freed memory back.
    ///   - afterEachPart: called where it gives freed memory back, after each part.
    private func render(
        _ arguments: [String], sizes: MergeRun.RenderSizes, released: Locked<Int>? = nil,
        afterEachPart: (@Sendable () -> Void)? = nil
    ) async throws -> Commands.ExitStatus {
        guard case .run(let options) = try RenderCommand.parse(arguments) else {
            Issue.record("render's options not parsed")
            return .usage
        }
        var run = try MergeRun(options: options, environment: ProcessInfo.processInfo.environment)
        run.renderSizes = sizes
        if let released { run.releaseFreedMemory = { released.withLock { $0 += 1 } } }
        if let afterEachPart { run.releaseFreedMemory = afterEachPart }
        return await run.run()
    }

    private func jsonObject(_ path: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any] ?? [:]
    }
}
