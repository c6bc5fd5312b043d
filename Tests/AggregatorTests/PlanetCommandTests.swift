import FeedEmit
import FeedFetch
import FeedModel
import FeedParse
import Foundation
import TestSupport
import Testing

/// The planet as a user runs it: `-o index.html` (and the OPML) beside the
/// feeds, with a state, from cron.
@Suite(.serialized) struct PlanetCommandTests {
    let server = PlanetServer.state

    func control(_ path: String) async throws {
        _ = try await HTTPClient().fetch(FetchRequest(url: server.url(path)))
    }

    func run(_ sources: [String], _ w: StateTests.Workspace, extra: [String] = []) async throws -> CommandRun {
        try await CommandRun.feedmerge(
            sources + ["-o", w.path("index.html"), "-o", w.path("feed.atom"), "-o", w.path("subs.opml")] + [
                "--now", "2024-02-01T00:00:00Z", "--state", w.state, "--title", "Planet Test", "--fetch-all",
            ] + extra)
    }

    func text(_ w: StateTests.Workspace, _ name: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: w.path(name))), as: UTF8.self)
    }

    @Test func theSameStateAndTimeGiveTheSamePageAndAFailingFeedIsShownAsSuch() async throws {
        let w = try StateTests.Workspace("planet-page")
        let feeds = ["atompage", "jsonpage", "rsspage"].map { server.url("/feed/\($0)") }
        let first = try await run(feeds, w)
        #expect(first.status == 0, "\(first.standardError)")
        let page = try text(w, "index.html")
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        for title in ["atompage own author", "atompage inherits", "rsspage entry 0", "rsspage entry 2"] {
            #expect(page.contains(title), "\(title) is not on the page")
        }
        #expect(page.contains("href=\"feed.atom\"") && page.contains("href=\"subs.opml\""))

        let second = try await run(feeds, w)
        #expect(second.standardError.contains("3 not modified"), "\(second.standardError)")
        #expect(try text(w, "index.html") == page, "the page changed though nothing did")

        try await control("/set/atompage/fail")
        defer { Task { try? await control("/set/atompage/ok") } }
        let failing = try await run(feeds, w)
        #expect(failing.status == 1)
        let failingPage = try text(w, "index.html")
        #expect(failingPage.contains("<li class=\"failing\"><a href=\"http://state.example/atompage/\">atompage</a>"))
        #expect(failingPage.contains("atompage own author"), "a failing feed's stored entries stay on the page")
        #expect(failingPage.contains("Failing since Thursday, 1 February 2024: "), "\(failingPage)")
        // Asked to wait (429, Retry-After) while failing: deferred the next run, still failing on the page.
        try await control("/set/atompage/retry")
        _ = try await run(feeds, w)
        let retried = try text(w, "index.html")
        let deferred = try await run(feeds, w)
        #expect(deferred.standardError.contains("not modified"), "\(deferred.standardError)")
        let deferredPage = try text(w, "index.html")
        #expect(deferredPage.contains("<li class=\"failing\"><a href=\"http://state.example/atompage/\">"))
        // The reason stays with it: the deferred run says what the run that failed said.
        let reason = { (page: String) in
            page.components(separatedBy: "Failing since ").dropFirst().first?.prefix { $0 != "<" }
        }
        #expect(
            reason(deferredPage) == reason(retried) && reason(retried)?.contains("HTTP 429") == true,
            "\(String(describing: reason(retried))) became \(String(describing: reason(deferredPage)))")
        try await control("/set/atompage/ok")
    }

    @Test func eachPageLinksToTheOtherOutputsFromItsOwnFolder() async throws {
        let w = try StateTests.Workspace("planet-links")
        for folder in ["a", "b/c"] {
            try FileManager.default.createDirectory(atPath: w.path(folder), withIntermediateDirectories: true)
        }
        let result = try await CommandRun.feedmerge([
            server.url("/feed/rsslinks"), "-o", w.path("a/index.html"), "-o", w.path("b/c/index.html"),
            "-o", w.path("my feed#1.atom"), "-o", w.path("b/s.opml"), "-o", w.path("b/c/a:b.json"), "--format", "json",
            "--no-state", "-q",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let first = try text(w, "a/index.html")
        let second = try text(w, "b/c/index.html")
        #expect(first.contains("href=\"../my%20feed%231.atom\"") && first.contains("href=\"../b/s.opml\""), "\(first)")
        #expect(first.contains("href=\"../b/c/a:b.json\""), "\(first)")
        #expect(second.contains("href=\"../../my%20feed%231.atom\"") && second.contains("href=\"../s.opml\""))
        #expect(second.contains("href=\"./a:b.json\""), "a colon in the first segment would read as a scheme")
    }

    @Test func aFeedThatMovedToAnotherSubscriptionsAddressIsListedOnce() async throws {
        let w = try StateTests.Workspace("planet-moved")
        // /feed/twin answers 301 to /feed/twin-new, which is also subscribed.
        try await control("/set/twin/moved")
        let result = try await run(
            [server.url("/feed/twin-new"), server.url("/feed/twin")], w,
            extra: ["--link", "http://planet.example/", "--no-state"])
        #expect(result.status <= 1, "\(result.standardError)")
        let exported = try text(w, "subs.opml")
        #expect(exported.components(separatedBy: "<outline type=").count == 2, "\(exported)")
        let page = try text(w, "index.html")
        #expect(page.components(separatedBy: "<li class=").count == 2, "\(page)")
    }

    @Test func theSubscriptionListIsExportedWithItsFolders() async throws {
        let w = try StateTests.Workspace("planet-opml")
        let opml = """
            <?xml version="1.0"?><opml version="2.0"><head><title>Mine</title></head><body>
            <outline text="Tech"><outline text="Deep"><outline text="my name for it" xmlUrl="\(server.url("/feed/atomfold"))"/></outline>
            <outline text="r" xmlUrl="\(server.url("/feed/rssfold"))"/></outline>
            <outline text="j" xmlUrl="\(server.url("/feed/jsonfold"))" htmlUrl="http://given.example/"/>
            </body></opml>
            """
        try Data(opml.utf8).write(to: URL(fileURLWithPath: w.path("feeds.opml")))
        let result = try await run([w.path("feeds.opml")], w, extra: ["--link", "http://planet.example/"])
        #expect(result.status == 0, "\(result.standardError)")
        let exported = try text(w, "subs.opml")
        // The outline structure: folders open and close around their feeds, named as the list named them.
        let shape = exported.split(separator: "\n").compactMap { line -> String? in
            let line = line.trimmingCharacters(in: .whitespaces)
            if line == "</outline>" { return "end" }
            guard line.hasPrefix("<outline"), let start = line.range(of: "text=\"") else { return nil }
            let text = line[start.upperBound...].prefix { $0 != "\"" }
            return line.hasPrefix("<outline type=\"rss\"") ? "feed \(text)" : "folder \(text)"
        }
        #expect(
            shape == ["folder Tech", "folder Deep", "feed my name for it", "end", "feed r", "end", "feed j"],
            "\(exported)")
        let atom =
            "<outline type=\"rss\" text=\"my name for it\" title=\"my name for it\" "
            + "xmlUrl=\"\(server.url("/feed/atomfold"))\" htmlUrl=\"http://state.example/atomfold/\"/>"
        #expect(exported.contains(atom), "the curated name and the feed's home page: \(exported)")
        // What we write, we read back as the same list.
        let reread = try await run([w.path("subs.opml")], w, extra: ["--link", "http://planet.example/", "--no-state"])
        #expect(reread.status == 0, "\(reread.standardError)")
    }
}

@Suite struct SanitizeOptionTests {
    @Test func sanitizeMakesTheMergedFeedsSafeAndWithoutItTheyCarryWhatTheFeedWrote() async throws {
        let w = try StateTests.Workspace("sanitize-option")
        let feed = """
            <?xml version="1.0"?><rss version="2.0"><channel><title>T</title><link>http://t.example/</link>
            <item><title>Post</title><guid>urn:t:1</guid><link>http://t.example/1</link>
            <description><![CDATA[<p onclick="steal()">Hi <script>steal()</script><a href="javascript:steal()">x</a>
            <img src="/i.png"></p>]]></description></item></channel></rss>
            """
        try Data(feed.utf8).write(to: URL(fileURLWithPath: w.path("feed.rss")))
        func merged(_ extra: [String]) async throws -> String {
            let run = try await CommandRun.feedmerge(
                [w.path("feed.rss"), "-o", w.path("out.atom"), "-o", w.path("out.json"), "--no-state", "-q"] + extra)
            #expect(run.status == 0, "\(run.standardError)")
            return try ["out.atom", "out.json"].map {
                String(decoding: try Data(contentsOf: URL(fileURLWithPath: w.path($0))), as: UTF8.self)
            }.joined()
        }
        let raw = try await merged([])
        #expect(raw.contains("<script>") && raw.contains("onclick"), "without --sanitize the feed's own markup")
        let safe = try await merged(["--sanitize"])
        for bad in ["script", "onclick", "javascript:"] { #expect(!safe.contains(bad), "\(bad) in \(safe)") }
        #expect(safe.contains("Hi ") && safe.contains("<a>x</a>"), "\(safe)")
        #expect(safe.contains("src=\"http://t.example/i.png\""), "relative URLs resolved: \(safe)")
    }
}

/// Planet Venus's own themes, unchanged, render a planet of the real-world
/// captures (the default --limit, 1,000 entries) with every entry of the
/// merged timeline and every subscription. The themes are Venus's
/// code (PSF licence), not ours: they are not in this repository. The test
/// reads them from $FEEDMERGE_VENUS_THEMES, else from `venus-themes` beside
/// the repository (asf/index.html.xslt, musings/index.html.xslt,
/// mobile/mobile.html.xslt, as in rubys/venus's themes/ folder).
@Suite(.serialized) struct VenusThemeTests {
    /// One server for the three themes (Server/corpus_server.py).
    static let server = LocalServer.start(
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Server/corpus_server.py"))

    static let themes: URL? = {
        let folder =
            ProcessInfo.processInfo.environment["FEEDMERGE_VENUS_THEMES"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: #filePath).appendingPathComponent("../../../../venus-themes").standardizedFileURL
        return FileManager.default.fileExists(atPath: folder.appendingPathComponent("asf/index.html.xslt").path)
            ? folder : nil
    }()
    static let skip: String? =
        SharedCorpora.path("realworld") == nil
        ? "needs ../shared/corpora/realworld"
        : themes == nil ? "needs Planet Venus's themes in $FEEDMERGE_VENUS_THEMES or ../venus-themes" : nil

    @Test(
        .tags(.corpus, .slow), .fullTier, .enabled(if: skip == nil, "\(skip ?? "")"),
        arguments: ["asf/index.html.xslt", "musings/index.html.xslt", "mobile/mobile.html.xslt"])
    func aVenusThemeShowsEveryEntryAndEverySubscription(theme: String) async throws {
        let server = Self.server
        let manifest = try String(contentsOf: SharedCorpora.path("realworld/MANIFEST.tsv")!, encoding: .utf8)
        let files = manifest.split(separator: "\n").dropFirst().map { String($0.split(separator: "\t")[0]) }
        let w = try StateTests.Workspace("venus-\(theme.split(separator: "/")[0])")
        let result = try await CommandRun.feedmerge(
            files.map { server.url("/" + $0) } + [
                "-o", w.path("index.html"), "-o", w.path("all.atom"), "--theme",
                Self.themes!.appendingPathComponent(theme).path,
                "--no-state", "--now", "2026-12-01T00:00:00Z", "-q",
            ])
        #expect(result.status <= 1, "\(result.standardError)")
        let page = String(decoding: try Data(contentsOf: URL(fileURLWithPath: w.path("index.html"))), as: UTF8.self)
        let merged = try FeedParser.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: w.path("all.atom")))))
        #expect(merged.entries.count == 1000, "the default --limit's worth")
        #expect(page.components(separatedBy: "<div class=\"news\"").count - 1 == merged.entries.count)
        var missing: [String] = []
        for entry in merged.entries {
            guard let title = entry.title.map({ $0.kind == .text ? $0.value : PlainText.from(html: $0.value) }),
                !title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
            else { continue }
            if !page.contains(HTMLText.escape(title)) { missing.append(title) }
        }
        #expect(missing.isEmpty, "\(missing.count) titles are not on the page, e.g. \(missing.prefix(3))")
        // Every subscription is listed, by the name it has.
        let listed = page.components(separatedBy: "<li>").count - 1
        #expect(listed >= files.count, "\(listed) list items for \(files.count) subscriptions")
    }
}

/// Text as the page's writer escapes it.
enum HTMLText {
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\u{A0}", with: "&nbsp;")
    }
}
