import FeedModel
import Foundation
import Testing
import TextOutput

@testable import PlanetPage

/// A page made of two feeds, one of them failing, and three entries on two days.
enum Sample {
    static let planet = FeedSource(
        title: "Planet Feed", link: "https://blog.example.org/", feedURL: "https://blog.example.org/feed.xml",
        authors: [Person(name: "Feed Author")])
    static let other = FeedSource(title: "Other", link: "https://other.example/", feedURL: "https://other.example/atom")

    static func entry(_ id: String, _ title: String, _ date: String, html: String, source: FeedSource) -> MergedEntry {
        var entry = Entry()
        entry.id = id
        entry.title = Text(title)
        entry.link = "https://blog.example.org/\(id)"
        entry.content = [Text(html, kind: .html)]
        return MergedEntry(entry: entry, date: Timestamp(rfc3339: date), source: source)
    }

    static var input: PlanetPageInput {
        let entries = [
            entry("c", "Third <post>", "2026-11-30T13:05:00Z", html: "<p>Three &amp; more</p>", source: planet),
            entry("b", "Second", "2026-11-30T09:00:00Z", html: "<p>Two</p>", source: other),
            entry("a", "First", "2026-11-28T23:59:00Z", html: "<p>One</p>", source: planet),
        ]
        let sources = [
            PlanetSource(
                name: "Planet Name", feedURL: planet.feedURL, title: planet.title, link: planet.link, httpStatus: 200),
            PlanetSource(
                name: "Other", feedURL: other.feedURL, title: "Other", link: other.link, status: .failing,
                message: "HTTP 500", httpStatus: 500, location: "https://other.example/new",
                lastSuccess: Timestamp(rfc3339: "2026-11-27T00:00:00Z"), failures: 3,
                failingSince: Timestamp(rfc3339: "2026-11-29T06:00:00Z")),
        ]
        let metadata = OutputMetadata(
            title: "Planet Example", link: "https://planet.example/", selfURL: nil, id: "urn:planet",
            author: nil, updated: entries[0].date, generator: "feedmerge", generatorVersion: "test")
        return PlanetPageInput(
            entries: entries, metadata: metadata, sources: sources,
            generated: Timestamp(rfc3339: "2026-12-01T06:00:00Z"), links: ["atom": "feed.atom", "opml": "subs.opml"])
    }

    /// A theme from its text, written to a temporary file.
    static func theme(_ text: String, _ name: String = #function, timeLimit: Double = Theme.defaultTimeLimit) throws
        -> Theme
    {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "feedmerge-theme-\(getpid())-\(name).xsl")
        try Data(text.utf8).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        return try Theme.file(path.path, timeLimit: timeLimit)
    }

    static func render(_ input: PlanetPageInput = Sample.input, theme: Theme) throws -> String {
        var out = TextBuffer()
        try PlanetPage.render(input, theme: theme, into: &out)
        return out.text
    }

    /// A theme that writes one XPath value per `<l>` element.
    static func probe(_ expressions: [String]) -> String {
        let lines = expressions.map { "<l><xsl:value-of select=\"\($0)\"/></l>" }.joined()
        return """
            <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
              xmlns:atom="http://www.w3.org/2005/Atom" xmlns:planet="http://planet.intertwingly.net/"
              xmlns:xhtml="http://www.w3.org/1999/xhtml" xmlns:feedmerge="urn:feedmerge:page">
              <xsl:param name="name"/><xsl:param name="generated"/><xsl:param name="atom"/>
              <xsl:param name="rss"/><xsl:param name="opml"/>
              <xsl:template match="/atom:feed"><lines>\(lines)</lines></xsl:template>
            </xsl:stylesheet>
            """
    }

    /// The values a probe theme wrote, unescaped.
    static func values(_ html: String) -> [String] {
        html.components(separatedBy: "<l>").dropFirst().map { part in
            String(part.prefix { $0 != "<" }).replacingOccurrences(of: "&lt;", with: "<")
                .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
        }
    }
}

extension Timestamp {
    init(rfc3339 text: String) {
        let digits = text.split { !$0.isNumber }.map { Int($0)! }
        self = CivilTime.timestamp(
            year: digits[0], month: digits[1], day: digits[2], hour: digits[3], minute: digits[4], second: digits[5])!
    }
}

@Suite struct PlanetDocumentTests {
    @Test func theDocumentSpeaksPlanetVenusVocabulary() throws {
        let expressions = [
            "count(planet:source)",
            "planet:source[1]/planet:name",
            "planet:source[1]/atom:link[@rel='alternate']/@href",
            "planet:source[1]/atom:link[@rel='self']/@href",
            "planet:source[1]/planet:http_status",
            "planet:source[2]/planet:message",
            "planet:source[2]/planet:http_status",
            "planet:source[2]/planet:http_location",
            "planet:source[2]/feedmerge:status",
            "atom:updated/@planet:format",
            "count(atom:entry)",
            "atom:entry[1]/atom:title",
            "atom:entry[1]/atom:updated",
            "atom:entry[1]/atom:updated/@planet:format",
            "atom:entry[1]/atom:source/planet:name",
            "atom:entry[2]/atom:source/planet:name",
            "atom:entry[1]/atom:content/@type",
            "count(atom:entry[1]/atom:content/xhtml:div)",
            "atom:entry[1]/atom:source/atom:author/atom:name",
        ]
        let lines = Sample.values(try Sample.render(theme: Sample.theme(Sample.probe(expressions))))
        #expect(
            lines == [
                "2", "Planet Name", "https://blog.example.org/", "https://blog.example.org/feed.xml", "200",
                "HTTP 500", "500", "https://other.example/new", "failing", "December 01, 2026 06:00 AM", "3",
                "Third <post>", "2026-11-30T13:05:00Z", "November 30, 2026 01:05 PM", "Planet Name", "Other",
                "xhtml", "1", "Feed Author",
            ])
    }

    @Test func themesGetTheirParameters() throws {
        let text = try Sample.render(
            theme: Sample.theme(Sample.probe(["$name", "$generated", "$atom", "$rss", "$opml"])))
        #expect(Sample.values(text) == ["Planet Example", "2026-12-01T06:00:00Z", "feed.atom", "", "subs.opml"])
    }

    @Test func datesReadAsVenusWroteThem() {
        #expect(PageDates.venus(Timestamp(rfc3339: "2026-12-01T00:07:00Z")) == "December 01, 2026 12:07 AM")
        #expect(PageDates.venus(Timestamp(rfc3339: "2026-12-01T12:00:00Z")) == "December 01, 2026 12:00 PM")
        #expect(PageDates.day(Timestamp(rfc3339: "2026-12-01T23:59:59Z")) == "Tuesday, 1 December 2026")
        #expect(PageDates.day(Timestamp(rfc3339: "1969-12-31T12:00:00Z")) == "Wednesday, 31 December 1969")
        #expect(PageDates.time(Timestamp(rfc3339: "2026-12-01T09:05:00Z")) == "09:05")
    }
}

@Suite struct ThemeTests {
    @Test func anXHTMLResultIsWrittenAsHTML() throws {
        let theme = try Sample.theme(
            """
            <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
              xmlns="http://www.w3.org/1999/xhtml">
              <xsl:template match="/">
                <html xml:lang="de"><head><title>t</title></head><body><div/><a href="x"/><br/><img src="i.png"/>
                <p>a&#160;b &amp; &lt;c&gt;</p><p title="&quot;q&quot; &amp;"/><script src="s.js"/>
                <svg xmlns="http://www.w3.org/2000/svg"><circle r="1"/></svg></body></html>
              </xsl:template>
            </xsl:stylesheet>
            """)
        let html = try Sample.render(theme: theme)
        #expect(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"de\"><head><meta charset=\"utf-8\"><title>t</title>"))
        #expect(html.contains("<div></div><a href=\"x\"></a><br><img src=\"i.png\">"))
        #expect(html.contains("<p>a&nbsp;b &amp; &lt;c&gt;</p><p title=\"&quot;q&quot; &amp;\"></p>"))
        #expect(html.contains("<script src=\"s.js\"></script>"))
        #expect(html.contains("<svg><circle r=\"1\"/></svg>"))
        #expect(!html.contains("/>") || !html.replacingOccurrences(of: "<circle r=\"1\"/>", with: "").contains("/>"))
        #expect(!html.contains("xmlns"))
    }

    @Test func aThemeThatSaysItsCharsetGetsNoSecondOne() throws {
        let theme = try Sample.theme(
            """
            <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
              <xsl:output method="html"/>
              <xsl:template match="/"><html><head><meta charset="utf-8"/></head><body/></html></xsl:template>
            </xsl:stylesheet>
            """)
        let html = try Sample.render(theme: theme)
        #expect(html.components(separatedBy: "charset").count == 2, "\(html)")
    }

    @Test func aBrokenThemeIsNamedWithItsReason() throws {
        #expect(throws: Theme.Failure.self) { try Theme.file("/nonexistent/theme.xsl") }
        do {
            _ = try Sample.theme("<xsl:stylesheet version=\"1.0\" xmlns:xsl=\"http://www.w3.org/1999/XSL/Transform\">")
            Issue.record("a malformed theme was accepted")
        } catch {
            #expect("\(error)".contains("not a usable XSLT stylesheet"), "\(error)")
        }
        do {
            _ = try Sample.theme("<html>not a stylesheet</html>")
            Issue.record("a document that is not XSLT was accepted")
        } catch {
            #expect("\(error)".contains("not a usable XSLT stylesheet"), "\(error)")
        }
    }

    @Test func aThemeCannotWriteFiles() throws {
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("feedmerge-written-\(getpid()).txt")
        let theme = try Sample.theme(
            """
            <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
              xmlns:exsl="http://exslt.org/common" extension-element-prefixes="exsl">
              <xsl:template match="/"><exsl:document href="\(target.path)" method="text">x</exsl:document><p/></xsl:template>
            </xsl:stylesheet>
            """)
        #expect(throws: PlanetPage.Failure.self) { try Sample.render(theme: theme) }
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }

    @Test func aTextThemeIsRefused() throws {
        do {
            _ = try Sample.theme(
                """
                <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
                  <xsl:output method="text"/><xsl:template match="/">x</xsl:template>
                </xsl:stylesheet>
                """)
            Issue.record("a text theme was accepted: its output would reach the page unescaped")
        } catch {
            #expect("\(error)".contains("output method is text"), "\(error)")
        }
    }

    @Test func aThemeReadsNoFileWhileItRuns() throws {
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("feedmerge-secret-\(getpid()).xml")
        try Data("<secret>s3cr3t</secret>".utf8).write(to: secret)
        defer { try? FileManager.default.removeItem(at: secret) }
        let theme = try Sample.theme(
            """
            <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
              <xsl:template match="/"><p><xsl:value-of select="document('\(secret.path)')"/></p></xsl:template>
            </xsl:stylesheet>
            """)
        let page = try? Sample.render(theme: theme)
        #expect(!(page ?? "").contains("s3cr3t"))
    }

    /// `document('')`, XSLT's idiom for data kept in the stylesheet itself, is the one read allowed.
    @Test func aThemeMayReadItself() throws {
        let theme = try Sample.theme(
            """
            <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform" xmlns:d="urn:data">
              <d:word>kept in the theme</d:word>
              <xsl:template match="/"><p><xsl:value-of select="document('')/*/d:word"/></p></xsl:template>
            </xsl:stylesheet>
            """)
        #expect(try Sample.render(theme: theme).contains("<p>kept in the theme</p>"))
    }

    @Test func aFailingThemeFailsThePage() throws {
        let theme = try Sample.theme(
            """
            <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
              <xsl:template match="/"><xsl:message terminate="yes">no page today</xsl:message></xsl:template>
            </xsl:stylesheet>
            """)
        do {
            _ = try Sample.render(theme: theme)
            Issue.record("a theme that stopped gave a page")
        } catch {
            #expect("\(error)".contains("no page today"), "\(error)")
        }
    }
}

@Suite struct DefaultThemeTests {
    @Test func entriesAreGroupedByDayWithTheirFeedAuthorAndTime() throws {
        let html = try Sample.render(theme: Theme.builtIn())
        #expect(html.components(separatedBy: "<section").count == 3, "two days")
        #expect(html.contains(">Monday, 30 November 2026</time></h2>"))
        #expect(html.contains(">Saturday, 28 November 2026</time></h2>"))
        #expect(html.contains("<h3><a href=\"https://blog.example.org/c\">Third &lt;post&gt;</a></h3>"))
        #expect(html.contains("<a href=\"https://blog.example.org/\">Planet Name</a> · by Feed Author · "))
        #expect(html.contains("<time datetime=\"2026-11-30T13:05:00Z\">13:05 UTC</time>"))
        // Order: newest first.
        let third = try #require(html.range(of: "Third &lt;post&gt;"))
        let first = try #require(html.range(of: ">First<"))
        #expect(third.lowerBound < first.lowerBound)
    }

    @Test func subscriptionsShowTheirHealthAndTheFeedsAreLinked() throws {
        let html = try Sample.render(theme: Theme.builtIn())
        #expect(html.contains("<li class=\"failing\">"))
        #expect(html.contains("Failing since Sunday, 29 November 2026: HTTP 500"))
        #expect(html.contains("<li class=\"ok\"><a href=\"https://blog.example.org/\">Planet Name</a>"))
        #expect(html.contains("href=\"feed.atom\""))
        #expect(html.contains("href=\"subs.opml\""))
        #expect(!html.contains("RSS feed"), "no RSS link when no RSS was written")
    }

    @Test func thePageRunsNoScriptAndSaysSo() throws {
        let html = try Sample.render(theme: Theme.builtIn())
        #expect(!html.contains("<script"))
        #expect(html.contains("Content-Security-Policy"))
        #expect(html.contains("default-src 'none'"))
        for landmark in ["<header", "<main", "<aside", "<footer", "<nav"] { #expect(html.contains(landmark)) }
        #expect(html.components(separatedBy: "<h1").count == 2)
    }

    @Test func samePlanetSameBytes() throws {
        let first = try Sample.render(theme: Theme.builtIn())
        let second = try Sample.render(theme: Theme.builtIn())
        #expect(first == second)
    }
}

@Suite struct PageLinkTests {
    @Test func onlyWebAndMailLinksReachThePage() {
        for url in ["http://a.example/", "mailto:jo@example.org"] { #expect(PageLink.safe(url) == url, "\(url)") }
        // As a browser reads the href: the scheme in lower case, surrounding spaces gone.
        #expect(PageLink.safe("HTTPS://a.example/X") == "https://a.example/X")
        #expect(PageLink.safe(" https://a.example/\t") == "https://a.example/")
        for url in [
            "javascript:alert(1)", "JaVaScRiPt:alert(1)", "java\tscript:alert(1)", "\u{1}javascript:x",
            "vbscript:x", "data:text/html,<script>", "file:///etc/passwd", "relative/page.html", "/absolute", "",
        ] {
            #expect(PageLink.safe(url) == nil, "\(url)")
        }
    }

    @Test func aFeedsJavascriptLinksAreNotLinksOnThePage() throws {
        var input = Sample.input
        input.entries[0].entry.link = "javascript:window.pwned=1"
        input.entries[1].source.link = "java\nscript:window.pwned=2"
        input.entries[1].entry.authors = [Person(name: "Mallory", uri: "javascript:x")]
        input.sources[1].link = "JAVASCRIPT:window.pwned=3"
        input.sources[1].location = "javascript:window.pwned=4"
        for theme in [try Theme.builtIn(), try Sample.theme(Sample.probe(["count(//atom:link)"]))] {
            let page = try Sample.render(input, theme: theme)
            #expect(!page.lowercased().contains("script:"), "\(page)")
        }
    }
}

@Suite struct SummaryOnlyTests {
    @Test func summariesReplaceContentAndAnEntryWithoutOneGetsTheStartOfItsContent() throws {
        var input = Sample.input
        input.summaryOnly = true
        input.entries[0].entry.summary = Text("<p>The <em>short</em> version</p>", kind: .html)
        input.entries[1].entry.content = [Text(String(repeating: "word ", count: 400), kind: .text)]
        let html = try Sample.render(input, theme: Theme.builtIn())
        #expect(html.contains("<div class=\"content\"><p>The <em>short</em> version</p></div>"))
        #expect(!html.contains("Three &amp; more"), "the content of an entry with a summary")
        #expect(html.contains("word word…"), "the start of a long text content")
        #expect(!html.contains(String(repeating: "word ", count: 100)))
    }
}

@Suite struct ExcerptTests {
    @Test func theStartOfTheTextWithWordsKeptWhole() {
        #expect(
            Excerpt.of(markup: "<p>One &amp; <em>two</em></p><p>three&#160;four &#x263A;</p>")
                == "One & two three four ☺")
        #expect(Excerpt.of(text: "  a\n\n b  ") == "a b")
        let long = String(repeating: "word ", count: 100)
        let excerpt = Excerpt.of(text: long)
        #expect(excerpt.hasSuffix("word…") && excerpt.count <= Excerpt.defaultLength + 1, "\\(excerpt.count)")
        #expect(
            Excerpt.of(markup: "<p>" + String(repeating: "é", count: 500) + "</p>").count == Excerpt.defaultLength + 1)
        #expect(Excerpt.of(text: long, length: 20) == "word word word word…", "Venus's excerpt.py width")
        #expect(Excerpt.of(markup: "a &unknown; b &amp") == "a &unknown; b &amp")
    }
}
