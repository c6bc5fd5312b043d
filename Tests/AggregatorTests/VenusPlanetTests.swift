import FeedModel
import FeedParse
import Foundation
import TestSupport
import Testing

/// Planet Venus's own themes, example configurations and filters
/// (`../shared/corpora/venus`) run by `feedmerge planet`, their feeds
/// pointed at the test planet on 127.0.0.1: every template renders, every
/// entry and subscription shows, the bill of materials is copied.
@Suite(.serialized) struct VenusPlanetTests {
    static let venus = SharedCorpora.path("venus")?.path ?? ""
    static let present = FileManager.default.fileExists(atPath: venus + "/themes")

    let server = PlanetServer.shared
    /// Twelve feeds of every format (two entries each shared with a neighbour).
    var feeds: [String] { (0..<12).map { server.url("/feed/\($0)") } }

    /// A configuration of the twelve feeds, each named and some with a face.
    func configuration(theme: String, extra: String = "", feedExtra: String = "") -> String {
        var text = """
            [Planet]
            name = Planet Venus Test
            link = http://planet.example/
            owner_name = Ops Person
            owner_email = ops@planet.example
            cache_directory = cache
            output_dir = www
            output_theme = \(theme)
            items_per_page = 100
            \(extra)

            [DEFAULT]
            facewidth = 65
            faceheight = 85

            """
        for (index, feed) in feeds.enumerated() {
            text += "[\(feed)]\nname = Person \(index)\n"
            if index % 3 == 0 { text += "face = face\(index).png\n" }
            text += feedExtra + "\n"
        }
        return text
    }

    func run(_ w: StateTests.Workspace, _ config: String, extra: [String] = []) async throws -> CommandRun {
        try config.write(toFile: w.path("config.ini"), atomically: true, encoding: .utf8)
        return try await CommandRun.feedmerge(
            ["planet", "--venus", Self.venus, "--now", "2024-12-01T00:00:00Z"] + extra + [w.path("config.ini")])
    }

    func text(_ w: StateTests.Workspace, _ name: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: w.path(name))), as: UTF8.self)
    }

    /// The entries of the planet's Atom output (Venus's atom.xml.xslt).
    func atomEntries(_ w: StateTests.Workspace) throws -> [Entry] {
        try FeedParser.parse(
            Array(try Data(contentsOf: URL(fileURLWithPath: w.path("www/atom.xml")))), options: .init(url: nil)
        )
        .entries
    }

    @Test(
        .tags(.corpus), .enabled(if: present, "needs ../shared/corpora/venus"),
        arguments: ["asf", "musings", "mobile", "classic_fancy"])
    func everyTemplateOfAThemeRendersEveryEntryAndSubscription(theme: String) async throws {
        let w = try StateTests.Workspace("venus-\(theme)")
        let run = try await run(w, configuration(theme: theme))
        #expect(run.status == 0, "\(run.standardError)")
        let themeConfig = try String(contentsOfFile: Self.venus + "/themes/\(theme)/config.ini", encoding: .utf8)
        let templates = themeConfig.components(separatedBy: "template_files:")[1].components(separatedBy: "\n\n")[0]
            .split(whereSeparator: \.isWhitespace).map(String.init)
        #expect(!templates.isEmpty)
        for template in templates {
            let output = "www/" + (template as NSString).deletingPathExtension
            let written = try text(w, output)
            #expect(!written.isEmpty, "\(output) is empty")
        }
        // 12 feeds × 5 entries, 11 of them shared with the next feed.
        let entries = try atomEntries(w)
        #expect(entries.count == 49, "\(entries.count) entries in atom.xml")
        let pages = templates.filter {
            ($0.hasSuffix(".html.xslt") || $0.hasSuffix(".html.tmpl")) && $0 != "validate.html.xslt"
        }
        for page in pages {
            let html = try text(w, "www/" + (page as NSString).deletingPathExtension)
            #expect(html.uppercased().hasPrefix("<!DOCTYPE HTML"), "\(page)")
            #expect(!html.contains("TMPL_"), "\(page) left a statement")
            for entry in entries {
                let title = (entry.title?.value ?? "").replacingOccurrences(of: "&", with: "&amp;")
                #expect(html.contains(title), "\(page) lacks \(title)")
            }
            if page == "index.html.xslt" {
                for index in 0..<12 { #expect(html.contains("Person \(index)"), "\(page) lacks Person \(index)") }
            }
        }
        // Every XML output is well-formed; the RSS ones (htmltmpl's) carry every entry.
        for template in templates where template.contains(".xml.") {
            let output = w.path("www/" + (template as NSString).deletingPathExtension)
            let data = try Data(contentsOf: URL(fileURLWithPath: output))
            if template.hasPrefix("rss") {
                let feed = try FeedParser.parse(Array(data), options: .init(url: nil))
                #expect(feed.entries.count == 49, "\(template): \(feed.entries.count) entries")
                #expect(feed.entries.allSatisfy { $0.title?.value.hasPrefix("Person ") == true }, "\(template)")
            }
        }
        let opml = try text(w, "www/opml.xml")
        for feed in feeds { #expect(opml.contains(feed), "opml.xml lacks \(feed)") }
        let foaf = try text(w, "www/foafroll.xml")
        #expect(foaf.contains("Person 11"))
        // The theme's bill of materials, beside the pages.
        let materials = themeConfig.components(separatedBy: "bill_of_materials:")[1]
            .split(whereSeparator: \.isWhitespace).map(String.init).prefix { !$0.hasPrefix("[") }
        for file in materials {
            #expect(FileManager.default.fileExists(atPath: w.path("www/" + file)), "\(file) not copied")
        }
        if theme == "classic_fancy" {
            // Each subscription's options reach the template (channel_face, with [DEFAULT]'s size).
            let page = try text(w, "www/index.html")
            #expect(
                page.contains("<img class=\"face\" src=\"images/face3.png\" width=\"65\" height=\"85\""),
                "\(page.prefix(3000))")
        }
    }

    /// A planet of its own theme (an htmltmpl page, an XSLT feed, a style sheet), as on a clone without the corpora.
    @Test func aPlanetWithItsOwnThemeRunsFromItsConfiguration() async throws {
        let w = try StateTests.Workspace("venus-own")
        let theme = w.path("mytheme")
        try FileManager.default.createDirectory(atPath: theme + "/inc", withIntermediateDirectories: true)
        try """
        [Planet]
        template_files = index.html.tmpl feed.xml.xslt
        bill_of_materials = style.css
        """.write(toFile: theme + "/config.ini", atomically: true, encoding: .utf8)
        try """
        <html><head><title><TMPL_VAR name></title></head><body><TMPL_INCLUDE head.tmpl>
        <TMPL_LOOP Items><TMPL_IF new_channel><h2><TMPL_VAR channel_name> <TMPL_VAR channel_mood></h2></TMPL_IF>
        <p><TMPL_VAR title> by <TMPL_VAR author_name ESCAPE="HTML"></p></TMPL_LOOP>
        <ul><TMPL_LOOP Channels><li><TMPL_VAR name></li></TMPL_LOOP></ul></body></html>
        """.write(toFile: theme + "/index.html.tmpl", atomically: true, encoding: .utf8)
        try "<h1><TMPL_VAR owner_name></h1>".write(toFile: theme + "/inc/head.tmpl", atomically: true, encoding: .utf8)
        try """
        <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
          xmlns:atom="http://www.w3.org/2005/Atom">
          <xsl:output method="xml"/>
          <xsl:template match="/"><titles><xsl:for-each select="//atom:entry"><t><xsl:value-of select="atom:title"/></t></xsl:for-each></titles></xsl:template>
        </xsl:stylesheet>
        """.write(toFile: theme + "/feed.xml.xslt", atomically: true, encoding: .utf8)
        try "body{}".write(toFile: theme + "/style.css", atomically: true, encoding: .utf8)
        let config = """
            [Planet]
            name = Own Planet
            owner_name = Owner
            output_theme = mytheme
            output_dir = site
            items_per_page = 4
            exclude = entry 1

            [\(server.url("/feed/2"))]
            name = Second
            mood = happy

            [\(server.url("/feed/3"))]
            name = Third
            """
        let run = try await run(w, config, extra: ["--no-state"])
        #expect(run.status == 0, "\(run.standardError)")
        let page = try text(w, "site/index.html")
        #expect(page.hasPrefix("<html><head><title>Own Planet</title></head><body><h1>Owner</h1>"), "\(page)")
        #expect(
            page.contains("<li>Second</li><li>Third</li>") || page.contains("<li>Second</li>\n<li>Third</li>"),
            "\(page)")
        #expect(page.contains("Second happy"), "a section's own option reaches the template")
        #expect(page.components(separatedBy: "<p>").count - 1 == 4, "items_per_page")
        #expect(!page.contains("entry 1"), "exclude applies")
        let xml = try text(w, "site/feed.xml")
        #expect(
            xml.hasPrefix("<?xml") && xml.contains("<t>Feed 3 entry 4 &amp; more</t>"),
            "written as its xsl:output says: \(xml)")
        #expect(try text(w, "site/style.css") == "body{}")
    }

    /// Venus splices one set of entries, as many as the largest
    /// `items_per_page` of its templates, and every template shows them
    /// all; it has no `days_per_page` (its configuration reads it, nothing
    /// uses it).
    @Test(.tags(.corpus), .enabled(if: present, "needs ../shared/corpora/venus"))
    func venusShowsTheLargestItemsPerPageOnEveryTemplateAndNoDayCap() async throws {
        let w = try StateTests.Workspace("venus-caps")
        let run = try await run(
            w,
            configuration(
                theme: "asf",
                extra: "\n[index.html.xslt]\nitems_per_page = 7\n[atom.xml.xslt]\nitems_per_page = 20\n"
                    + "days_per_page = 1\n"
            ).replacingOccurrences(of: "items_per_page = 100", with: "items_per_page = 5"))
        #expect(run.status == 0, "\(run.standardError)")
        let entries = try atomEntries(w)
        #expect(entries.count == 20, "the largest items_per_page (20), on every template: \(entries.count)")
        let days = Set(entries.compactMap { ($0.updated ?? $0.published).map { $0.secondsSince1970 / 86_400 } })
        #expect(days.count > 1, "no days_per_page: \(days)")
        let page = try text(w, "www/index.html")
        let last = (entries[19].title?.value ?? "-").replacingOccurrences(of: "&", with: "&amp;")
        #expect(page.contains(last), "index.html shows 20 entries too: \(last)")
    }

    /// Planet 2.0 caps each template by its own `items_per_page`, then
    /// keeps the entries less than `days_per_page` × 84,600 s (its code's
    /// constant) older than the newest.
    @Test(.tags(.corpus), .enabled(if: present, "needs ../shared/corpora/venus"))
    func planet2CapsEachTemplateByItsOwnItemsAndDays() async throws {
        let w = try StateTests.Workspace("planet2-caps")
        try FileManager.default.createDirectory(atPath: w.path("config"), withIntermediateDirectories: true)
        for (from, name) in [("common/rss20.xml.tmpl", "rss20.xml.tmpl"), ("common/rss10.xml.tmpl", "rss10.xml.tmpl")] {
            try FileManager.default.copyItem(atPath: Self.venus + "/themes/" + from, toPath: w.path("config/" + name))
        }
        var text = """
            [Planet]
            name = Planet Two
            link = http://planet.example/
            cache_directory = cache
            output_dir = output
            template_files = config/rss20.xml.tmpl config/rss10.xml.tmpl
            items_per_page = 30

            [config/rss10.xml.tmpl]
            items_per_page = 9
            [config/rss20.xml.tmpl]
            days_per_page = 2


            """
        for (index, feed) in feeds.enumerated() { text += "[\(feed)]\nname = Person \(index)\n\n" }
        try text.write(toFile: w.path("config/config.ini"), atomically: true, encoding: .utf8)
        // Run from the site's root, as its cron runs planet.py: the template paths are read from there.
        let run = try await CommandRun.feedmerge(
            ["planet", "--now", "2024-12-01T00:00:00Z", "config/config.ini"], workingDirectory: w.path(""))
        #expect(run.status == 0, "\(run.standardError)")
        func entries(_ name: String) throws -> [Entry] {
            try FeedParser.parse(
                Array(try Data(contentsOf: URL(fileURLWithPath: w.path("output/" + name)))),
                options: .init(url: nil)
            ).entries
        }
        #expect(try entries("rss10.xml").count == 9)
        let dated = try entries("rss20.xml").compactMap { ($0.updated ?? $0.published)?.secondsSince1970 }
        #expect(!dated.isEmpty && dated.count < 30, "\(dated.count)")
        #expect(dated.allSatisfy { $0 > dated.max()! - 2 * 84_600 }, "\(dated)")
        #expect(!FileManager.default.fileExists(atPath: w.path("config/output")), "output_dir is the site's")
    }

    @Test(.tags(.corpus), .enabled(if: present, "needs ../shared/corpora/venus"))
    func filtersOfTheConfigurationRunOnEveryFeedAndOnEach() async throws {
        let w = try StateTests.Workspace("venus-filters")
        let extra = "filters = detitle.xslt\nexclude = entry 3\n"
        var config = configuration(theme: "asf", extra: extra)
        // One feed keeps only its entries 0 and 1 (an xpath sifter of its own).
        config = config.replacingOccurrences(
            of: "name = Person 5\n",
            with:
                "name = Person 5\nfilters = xpath_sifter.py?require=//atom:title[contains(.,'entry%200')%20or%20contains(.,'entry%201')]\n"
        )
        let run = try await run(w, config)
        #expect(run.status == 0, "\(run.standardError)")
        let titles = try atomEntries(w).compactMap(\.title?.value)
        #expect(
            !titles.contains { $0.contains("entry 3") },
            "exclude = entry 3 kept \(titles.filter { $0.contains("entry 3") })")
        #expect(!titles.contains { $0.hasPrefix("Feed 5 entry 2") || $0.hasPrefix("Feed 5 entry 4") })
        #expect(titles.contains { $0.hasPrefix("Feed 5 entry 1") })
        #expect(titles.contains { $0.hasPrefix("Feed 6 entry 2") })
    }

    /// Venus's xpath-sifter example: one feed sifted by category (URL-encoded), one by title
    /// (the bare `?EXPRESSION` form, relative to the document: it selects nothing), one not at all.
    @Test(.tags(.corpus), .enabled(if: present, "needs ../shared/corpora/venus"))
    func theXPathSifterExampleSiftsEachFeedAsItSays() async throws {
        let w = try StateTests.Workspace("venus-xpath-sifter")
        var config = try String(
            contentsOfFile: Self.venus + "/examples/filters/xpath-sifter/xpath-sifter.ini", encoding: .utf8)
        for (n, url) in [
            "http://example.com/uncategorised.xml", "http://example.com/verbose.xml",
            "http://example.com/normal.xml",
        ].enumerated() {
            config = config.replacingOccurrences(of: "[\(url)]", with: "[\(server.url("/feed/\(n + 1)"))]")
        }
        // The example names no template: the test gives it a theme to write with.
        config = config.replacingOccurrences(of: "[Planet]\n", with: "[Planet]\noutput_theme = asf\noutput_dir = www\n")
        let run = try await run(w, config, extra: ["--no-state"])
        #expect(run.status == 0, "\(run.standardError)")
        let titles = try atomEntries(w).compactMap(\.title?.value)
        // Feeds 1 and 2 have no category "two" and no matching title at the root: only feed 3 shows.
        #expect(
            !titles.isEmpty && titles.allSatisfy { $0.hasPrefix("Feed 3 ") || $0.hasPrefix("Feed 2 entry 4") },
            "\(titles)")
    }

    @Test(.tags(.corpus), .enabled(if: present, "needs ../shared/corpora/venus"))
    func venusExampleConfigurationsRunWithTheirFeedsPointedHere() async throws {
        for name in ["planet-schmanet.ini", "opml-top100.ini", "foaf-based.ini"] {
            let w = try StateTests.Workspace("venus-example-\(name)")
            var config = try String(contentsOfFile: Self.venus + "/examples/" + name, encoding: .utf8)
            // Every subscription section points at a feed of the test planet; a list at its OPML.
            var feed = 0
            config = config.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
                guard line.hasPrefix("[http") else { return String(line) }
                if line.contains(".opml") { return "[\(server.url("/planet.opml"))]" }
                feed += 1
                return "[\(server.url("/feed/\(feed)"))]"
            }.joined(separator: "\n")
            config = config.replacingOccurrences(of: "/home/rubys/public_html/", with: "www-")
                .replacingOccurrences(of: "/var/www/planet", with: "www")
                .replacingOccurrences(of: "/home/rubys/planet/", with: "cache-")
                .replacingOccurrences(of: "/tmp/venus/", with: "cache")
                // The test planet's list has a feed that never answers: feed_timeout bounds it.
                .replacingOccurrences(of: "[Planet]\n", with: "[Planet]\nfeed_timeout = 2\n")
            let run = try await run(w, config)
            if name == "foaf-based.ini" {
                // Its only subscription is a FOAF reading list, which feedmerge does not read.
                #expect(run.status == 2 && run.standardError.contains("foaf"), "\(run.standardError)")
                continue
            }
            #expect(run.status <= 1, "\(name): \(run.standardError)")
            let folder = try FileManager.default.contentsOfDirectory(atPath: w.path(".")).first { $0.hasPrefix("www") }
            #expect(folder != nil, "\(name): no output folder")
        }
    }
}
