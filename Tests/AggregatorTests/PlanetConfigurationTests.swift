import FeedFetch
import Foundation
import TestSupport
import Testing

/// What a Venus or Planet 2.0 configuration asks, as `feedmerge planet`
/// runs it: warnings that reach the operator whatever `log_level` says,
/// dates as Planet 2.0 writes them, filters checked before anything is
/// fetched, and nothing copied by a run that could not start.
@Suite(.serialized) struct PlanetConfigurationTests {
    static let server = PlanetServer.hostile
    var server: LocalServer { Self.server }

    /// A planet whose theme (`themes/evil`, a plain htmltmpl page) shows
    /// each entry's title and date; `planet` is its `[Planet]` section's
    /// extra lines, `sections` what follows.
    func planet(_ name: String, planet: String, sections: String) throws -> ThemeConfinementTests.Planet {
        let p = try ThemeConfinementTests.Planet(
            "config-\(name)", feed: server.url("/feed.xml"), planet: planet, sections: sections)
        try p.write(
            p.theme + "/index.html.tmpl",
            "<html><TMPL_LOOP Items><p><TMPL_VAR title> at <TMPL_VAR date></p></TMPL_LOOP></html>")
        try p.write(p.theme + "/style.css", "p { color: red }")
        try p.write(
            p.theme + "/config.ini", "[Planet]\ntemplate_files = index.html.tmpl\nbill_of_materials = style.css\n")
        return p
    }

    @Test func logLevelErrorStillSaysWhatIsNotRunAndDatesSayUTC() async throws {
        let p = try planet(
            "log-level", planet: "log_level = ERROR\ndate_format = %H:%M %Z\nfilters = translate.py",
            sections: "[\(server.url("/feed.xml"))]\nname = Plain\n")
        let run = try await p.run()
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("filter translate.py is not run"), "\(run.standardError)")
        // Quiet otherwise: no summary line.
        #expect(!run.standardError.contains("feeds ok"), "\(run.standardError)")
        let page = try String(contentsOfFile: p.output + "/index.html", encoding: .utf8)
        #expect(page.contains("Plain entry at 10:00 UTC"), "\(page)")
    }

    @Test func aRunThatCannotStartCopiesNothing() async throws {
        let p = try planet("no-feed", planet: "", sections: "")
        let run = try await p.run()
        #expect(run.status == 2, "\(run.standardError)")
        #expect(!FileManager.default.fileExists(atPath: p.output + "/style.css"))
    }

    @Test func anXPathSifterThatDoesNotCompileStopsTheRunBeforeAnyFetch() async throws {
        let token = "sifter-\(getpid())"
        let p = try planet(
            "sifter", planet: "",
            sections:
                "[\(server.url("/feed.xml?t=\(token)"))]\nname = Plain\nfilters = xpath_sifter.py?require=//atom:title%5B\n"
        )
        let run = try await p.run()
        #expect(run.status == 2, "\(run.standardError)")
        #expect(run.standardError.contains("xpath_sifter require: not an XPath expression: //atom:title["))
        let log = try await HTTPClient().fetch(FetchRequest(url: server.url("/log"))).body
        #expect(!String(decoding: log, as: UTF8.self).contains(token))
    }

    @Test func anXPathSifterThatCannotBeEvaluatedKeepsTheEntryAndSaysSo() async throws {
        let p = try planet(
            "sifter-prefix", planet: "",
            sections: "[\(server.url("/feed.xml"))]\nname = Plain\nfilters = xpath_sifter.py?require=//nowhere:title\n")
        let run = try await p.run()
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("filter xpath_sifter.py failed on 1 of its entries"), "\(run.standardError)")
        let page = try String(contentsOfFile: p.output + "/index.html", encoding: .utf8)
        #expect(page.contains("Plain entry"))
    }
}

/// What the configuration hands the templates, as Venus and Planet 2.0 hand it.
extension PlanetConfigurationTests {
    /// Names are HTML as written (`Ga&#235;l` shows "Gaël"); a feed's own
    /// title stays text. `activity_threshold` marks a subscription whose
    /// newest entry is older than that many days, unless it failed.
    @Test func namesAsWrittenAndActivityThresholdMarks() async throws {
        let p = try planet(
            "names", planet: "activity_threshold = 30\nowner_name = Ond&#345;ej",
            sections: """
                [\(server.url("/feed.xml"))]
                name = Ga&#235;l <b>V</b>

                [old.xml]

                [\(server.url("/missing.xml"))]
                name = Gone

                """)
        try p.write(
            p.theme + "/index.html.tmpl",
            "<html><TMPL_VAR owner_name><TMPL_LOOP Channels><li title=\"<TMPL_VAR name>\"><TMPL_VAR name>"
                + "|<TMPL_VAR message></li></TMPL_LOOP></html>")
        try p.write(
            p.w.path("old.xml"),
            "<rss version=\"2.0\"><channel><title>Old &amp; &lt;quiet&gt;</title><item><title>t</title>"
                + "<guid>urn:old</guid><pubDate>Mon, 02 Nov 2020 10:00:00 GMT</pubDate></item></channel></rss>")
        let run = try await p.run()
        let page = try String(contentsOfFile: p.output + "/index.html", encoding: .utf8)
        #expect(run.status == 1, "one feed fails: \(run.standardError)")
        #expect(page.contains("<html>Ond&#345;ej"), "\(page)")
        #expect(page.contains("title=\"Ga&#235;l &lt;b&gt;V&lt;/b&gt;\">Ga&#235;l <b>V</b>|</li>"), "\(page)")
        #expect(page.contains(">Old &amp; &lt;quiet&gt;|no activity in 30 days</li>"), "\(page)")
        #expect(page.contains(">Gone|") && !page.contains("Gone|no activity"), "a failure says its own: \(page)")
    }

    /// An item's `author` is the item's own; its feed's is `channel_author`, as in both
    /// programs (a merged feed credits the feed's authors to an entry without one).
    @Test func anItemsAuthorIsItsOwnAndItsFeedsIsTheChannels() async throws {
        let p = try planet("authors", planet: "", sections: "[feed.xml]\nname = Feed\n")
        try p.write(
            p.theme + "/index.html.tmpl",
            "<html><TMPL_LOOP Items><i><TMPL_VAR title>|<TMPL_VAR author>|<TMPL_VAR channel_author_email></i>"
                + "</TMPL_LOOP></html>")
        try p.write(
            p.w.path("feed.xml"),
            "<rss version=\"2.0\"><channel><title>F</title><managingEditor>ed@example.org</managingEditor>"
                + "<item><title>mine</title><author>me@example.org (Me)</author><guid>urn:a</guid>"
                + "<pubDate>Mon, 02 Nov 2020 10:00:00 GMT</pubDate></item>"
                + "<item><title>nobody</title><guid>urn:b</guid><pubDate>Mon, 02 Nov 2020 09:00:00 GMT</pubDate>"
                + "</item></channel></rss>")
        let run = try await p.run()
        let page = try String(contentsOfFile: p.output + "/index.html", encoding: .utf8)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(page.contains("<i>mine|Me (me@example.org)|ed@example.org</i>"), "\(page)")
        #expect(page.contains("<i>nobody||ed@example.org</i>"), "\(page)")
    }

    /// A Venus planet shows a subscription's address as its feed gives it (`rel="self"`),
    /// as Venus does; one a page may not link to (`javascript:`) leaves the address fetched.
    @Test func aVenusPlanetShowsTheAddressTheFeedGivesItself() async throws {
        let p = try planet("self-link", planet: "", sections: "[own.xml]\nname = Own\n\n[odd.xml]\nname = Odd\n")
        try p.write(
            p.theme + "/index.html.tmpl",
            "<html><TMPL_LOOP Channels><i><TMPL_VAR name>=<TMPL_VAR url></i></TMPL_LOOP></html>")
        for (file, href) in [("own.xml", "https://blog.example/feed/"), ("odd.xml", "javascript:alert(1)")] {
            try p.write(
                p.w.path(file),
                "<rss version=\"2.0\" xmlns:atom=\"http://www.w3.org/2005/Atom\"><channel><title>T</title>"
                    + "<atom:link rel=\"self\" href=\"\(href)\"/><item><title>e</title><guid>urn:\(file)</guid>"
                    + "</item></channel></rss>")
        }
        let run = try await p.run()
        let page = try String(contentsOfFile: p.output + "/index.html", encoding: .utf8)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(page.contains("<i>Own=https://blog.example/feed/</i>"), "\(page)")
        #expect(page.contains("<i>Odd=file://") || page.contains("<i>Odd=/"), "\(page)")
        #expect(!page.contains("javascript"), "\(page)")
    }

    /// Filter settings a list that is not a local file gives are left out, and that is said
    /// once at the default verbosity (each one with -v).
    @Test func filterSettingsLeftOutOfARemoteListAreSaidOnce() async throws {
        let w = try StateTests.Workspace("remote-list-filters")
        let feed = server.url("/feed.xml")
        let list = server.url("/list.opml?f=1&u=\(feed)")
        let run = try await CommandRun.feedmerge([list, "-o", w.path("out.atom"), "--no-state"])
        #expect(run.status == 0, "\(run.standardError)")
        let said = run.standardError.components(separatedBy: "\n").filter { $0.contains("is not taken from a list") }
        #expect(said.count == 1, "\(run.standardError)")
        #expect(said.first?.contains("filter is not taken from a list that is not a local file (and 1 more") == true)
        let verbose = try await CommandRun.feedmerge([list, "-o", w.path("out.atom"), "--no-state", "-v"])
        #expect(verbose.standardError.contains("exclude is not taken from a list"), "\(verbose.standardError)")
    }
}
