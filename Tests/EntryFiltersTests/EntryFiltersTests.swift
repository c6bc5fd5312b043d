import EntryFilters
import FeedModel
import FeedParse
import Foundation
import TestSupport
import Testing

/// What each filter does to a feed's entries.
@Suite struct EntryFiltersTests {
    static let document = """
        <rss version="2.0"><channel><title>Blog</title><link>http://blog.example/</link>
        <item><guid>urn:1</guid><title>Swift on Linux</title><link>http://blog.example/1</link>
          <description>&lt;p&gt;Building &lt;b&gt;feedmerge&lt;/b&gt; with &lt;img src="x.png" alt="a diagram"&gt;&lt;/p&gt;</description>
          <category>two</category><author>ann@example.org (Ann)</author>
          <pubDate>Tue, 01 Dec 2026 10:00:00 GMT</pubDate></item>
        <item><guid>urn:2</guid><title>Cooking pasta</title><link>http://blog.example/2</link>
          <description>Boil water. Add salt.</description><category>one</category></item>
        <item><guid>urn:3</guid><title>Venus and Swift</title><link>http://blog.example/3</link>
          <description>Venus and Swift: notes on planets</description></item>
        </channel></rss>
        """

    func feed() throws -> ParsedFeed { try FeedParser.parse(Array(Self.document.utf8), options: .init(url: nil)) }

    func ids(after steps: [EntryFilter]) throws -> [String] {
        var feed = try feed()
        EntryFilters(steps, names: steps.indices.map(String.init)).apply(to: &feed, feedURL: "http://blog.example/feed")
        return feed.entries.compactMap(\.id)
    }

    @Test func filterKeepsAndExcludeDropsByTheEntrysText() throws {
        #expect(try ids(after: [.pattern("Swift", keep: true)]) == ["urn:1", "urn:3"])
        #expect(try ids(after: [.pattern("Swift", keep: false)]) == ["urn:2"])
        // Content as text (no markup), categories and authors count; a tag's name does not.
        #expect(try ids(after: [.pattern("Building feedmerge with", keep: true)]) == ["urn:1"])
        #expect(try ids(after: [.pattern("\\bAnn\\b", keep: true)]) == ["urn:1"])
        #expect(try ids(after: [.pattern("<b>", keep: true)]) == [])
        #expect(try ids(after: [.pattern("swift", keep: true)]) == [], "case matters, as in Python's re")
        #expect(try ids(after: [.pattern("(?i)swift", keep: true)]) == ["urn:1", "urn:3"])
        #expect(throws: EntryFilterError.self) { try EntryFilter.pattern("(unclosed", keep: true) }
    }

    @Test func regexpSifterRequiresEveryPatternAndExcludesAny() throws {
        #expect(try ids(after: [.regexpSifter(require: "Swift\nVenus", exclude: nil)]) == ["urn:3"])
        #expect(try ids(after: [.regexpSifter(require: nil, exclude: "pasta\nplanets")]) == ["urn:1"])
        // Words in an image's alt text are the entry's text too.
        #expect(try ids(after: [.regexpSifter(require: "a diagram", exclude: nil)]) == ["urn:1"])
    }

    @Test func xpathSifterReadsTheNormalizedAtomEntry() throws {
        #expect(try ids(after: [.xpathSifter(require: "//atom:category[@term='two']", exclude: nil)]) == ["urn:1"])
        #expect(try ids(after: [.xpathSifter(require: "//atom:title[contains(.,'Venus')]", exclude: nil)]) == ["urn:3"])
        #expect(try ids(after: [.xpathSifter(require: nil, exclude: "//xhtml:b")]) == ["urn:2", "urn:3"])
        #expect(
            try ids(after: [.xpathSifter(require: "/atom:entry/atom:source/atom:link[@rel='self']", exclude: nil)])
                .count == 3)
    }

    @Test func ignoreInFeedForgetsWhatIsNotBelieved() throws {
        var feed = try feed()
        EntryFilters([.ignore(["author", "published", "category"])], names: ["i"]).apply(to: &feed, feedURL: nil)
        #expect(feed.entries[0].authors.isEmpty)
        #expect(feed.entries[0].published == nil)
        #expect(feed.entries[0].categories.isEmpty)
        #expect(feed.entries[0].title?.value == "Swift on Linux")
    }

    /// A stylesheet in a temporary file.
    func stylesheet(_ templates: String) throws -> EntryFilter {
        let path = NSTemporaryDirectory() + "filter-\(UUID().uuidString).xslt"
        try """
        <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
          xmlns:atom="http://www.w3.org/2005/Atom" xmlns:xhtml="http://www.w3.org/1999/xhtml">
          \(templates)
          <xsl:template match="@*|node()"><xsl:copy><xsl:apply-templates select="@*|node()"/></xsl:copy></xsl:template>
        </xsl:stylesheet>
        """.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try EntryFilter.stylesheet(path: path)
    }

    @Test func anXSLTFilterChangesEntriesAndAnEmptyResultDropsOne() throws {
        let retitle = try stylesheet(
            """
            <xsl:template match="atom:title"><xsl:copy><xsl:attribute name="type">text</xsl:attribute>Seen: <xsl:value-of select="."/></xsl:copy></xsl:template>
            <xsl:template match="xhtml:b"/>
            <xsl:template match="/atom:entry[atom:category/@term='one']"/>
            """)
        var feed = try feed()
        EntryFilters([retitle], names: ["r"]).apply(to: &feed, feedURL: "http://blog.example/feed")
        #expect(feed.entries.compactMap(\.id) == ["urn:1", "urn:3"])
        #expect(feed.entries[0].title?.value == "Seen: Swift on Linux")
        let summary = feed.entries[0].summary?.value ?? ""
        #expect(summary.contains("Building") && !summary.contains("feedmerge"), "\(summary)")
        #expect(feed.entries[0].link == "http://blog.example/1")
        #expect(feed.entries[0].published != nil && feed.entries[0].authors.first?.name == "Ann")
    }

    @Test func stepsRunInOrder() throws {
        let dropTitles = try stylesheet("<xsl:template match=\"atom:title\"/>")
        #expect(
            try ids(after: [dropTitles, .pattern("Venus", keep: true)]) == ["urn:3"], "the content still says Venus")
        #expect(try ids(after: [.pattern("Cooking", keep: false), dropTitles, .pattern("Cooking", keep: true)]) == [])
    }

    @Test func aFileThatIsNotAStylesheetIsRefused() throws {
        let path = NSTemporaryDirectory() + "not-xslt-\(UUID().uuidString).xslt"
        try "not xml".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: EntryFilterError.self) { try EntryFilter.stylesheet(path: path) }
        #expect(throws: EntryFilterError.self) { try EntryFilter.stylesheet(path: path + ".missing") }
    }

    static let venusFilters = SharedCorpora.path("venus/filters")?.path ?? ""

    /// Venus's example filter: `document('')` reads its own keyword list; an entry that names one gets a category.
    @Test(
        .tags(.corpus),
        .enabled(if: FileManager.default.fileExists(atPath: venusFilters), "needs ../shared/corpora/venus"))
    func venusCategoriesExampleAddsItsCategory() throws {
        let path =
            (Self.venusFilters as NSString).deletingLastPathComponent + "/examples/filters/categories/categories.xslt"
        let document = """
            <feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>
            <entry><id>urn:a</id><title>Notes on RDF and OWL</title><updated>2026-12-01T00:00:00Z</updated>
              <content type="html">Linked data.</content></entry>
            <entry><id>urn:b</id><title>Cooking</title><updated>2026-12-01T00:00:00Z</updated></entry>
            </feed>
            """
        var feed = try FeedParser.parse(Array(document.utf8), options: .init(url: nil))
        EntryFilters([try EntryFilter.stylesheet(path: path)], names: ["categories"]).apply(to: &feed, feedURL: nil)
        #expect(feed.warnings.isEmpty, "\(feed.warnings)")
        #expect(feed.entries.map { $0.categories.map(\.term) } == [["WebSemantique"], []])
    }

    @Test(
        .tags(.corpus),
        .enabled(if: FileManager.default.fileExists(atPath: venusFilters), "needs ../shared/corpora/venus"))
    func venusOwnFiltersRunUnchanged() throws {
        let document = """
            <feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>
            <entry><id>urn:a</id><title>A long title that repeats the content's start</title>
              <content type="html">A long title that repeats the content's start, and more</content></entry>
            <entry><id>urn:b</id><title>Short</title><content type="html">&lt;h1&gt;Heading&lt;/h1&gt;Body</content></entry>
            </feed>
            """
        for name in ["detitle.xslt", "h1title.xslt", "delDupName/p_from.xslt", "delDupName/byline_author.xslt"] {
            var feed = try FeedParser.parse(Array(document.utf8), options: .init(url: nil))
            EntryFilters([try EntryFilter.stylesheet(path: Self.venusFilters + "/" + name)], names: [name])
                .apply(to: &feed, feedURL: nil)
            // h1title.xslt copies the title's attributes onto the entry after its children, an
            // XSLT error for a title with a `type`: a plain title has none, as under Venus.
            #expect(feed.entries.count == 2, "\(name) dropped entries")
            #expect(!feed.warnings.contains { $0.contains("failed") }, "\(name): \(feed.warnings)")
            if name == "h1title.xslt" {
                #expect(feed.entries[1].title?.value == "Heading", "h1title.xslt: the h1 is not the title")
                #expect(feed.entries[1].content.first?.value.contains("h1") == false)
            }
            if name == "detitle.xslt" {
                #expect(
                    feed.entries[0].title == nil || feed.entries[0].title?.value == "", "\(name): duplicate title kept")
                #expect(feed.entries[1].title?.value == "Short")
            }
        }
    }
}
