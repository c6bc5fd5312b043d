import FeedModel
import Testing

@testable import FeedParse

/// Where `feedmerge parse` reads a document differently from feedparser on
/// purpose (the visible conformance checks that stay failing, and why).
@Suite struct DeliberateDifferencesTests {
    static func description(_ escaped: String, declaration: String = "") throws -> Text? {
        let xml = """
            <?xml version="1.0" encoding="utf-8"?>\(declaration)
            <rss version="2.0"><channel><title>t</title><item><description>\(escaped)</description></item></channel></rss>
            """
        return try FeedParser.parse(Array(xml.utf8)).entries.first?.summary
    }

    /// feedparser sends escaped HTML through its own normalizer, which adds
    /// namespace declarations and writes `<circle/>` as an unclosed
    /// `<circle>` (wellformed/namespace/rss2.0svg*.xml). We keep the markup
    /// as the feed wrote it: the sanitizer, not the parser, rewrites HTML.
    @Test func escapedSVGInADescriptionIsKeptAsWritten() throws {
        let summary = try Self.description(
            #"&lt;svg xmlns="http://www.w3.org/2000/svg"&gt;&lt;circle r="5"/&gt;&lt;/svg&gt;"#)
        #expect(summary?.value == #"<svg xmlns="http://www.w3.org/2000/svg"><circle r="5"/></svg>"#)
        #expect(summary?.kind == .html)
    }

    /// feedparser escapes a `<!` that opens no comment or declaration into
    /// text (wellformed/rss/item_description_not_a_doctype.xml); the value
    /// stays HTML as written, and what a browser makes of it (a bogus
    /// comment) is the sanitizer's business.
    @Test func markupDeclarationLookalikeIsKeptAsWritten() throws {
        let summary = try Self.description(#"&lt;!' &lt;a href="foo"&gt;"#)
        #expect(summary?.value.hasPrefix("<!'") == true)
    }

    /// Invalid bytes in a UTF-8 document become U+FFFD, one per broken
    /// sequence; feedparser's encoding/bozo_linenoise.xml expects a
    /// windows-1252 misreading of the whole document that no consistent
    /// rule gives.
    @Test func brokenUTF8SequencesBecomeReplacementCharacters() throws {
        var xml = Array(#"<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><item><title>caf"#.utf8)
        xml += [0xC3, 0xA9, 0x20, 0xE2, 0x80, 0x99, 0x20, 0xFF]  // é, ’, then a byte no UTF-8 sequence starts with
        xml += Array("</title></item></channel></rss>".utf8)
        let title = try FeedParser.parse(xml).entries.first?.title?.value
        #expect(title == "café ’ \u{FFFD}")
    }

    /// A zone written after an am/pm time counts (feedparser reads these as UTC:
    /// rome's sunnyvale.xml and yweather.xml in the real-world corpus).
    @Test(arguments: [
        ("Mon, 21 Jan 2008 8:56 am PST", "2008-01-21T16:56:00Z"),
        ("Sun, 20 Apr 2014 8:19 pm CEST", "2014-04-20T18:19:00Z"),
    ])
    func zonesAfterTwelveHourTimesCount(_ text: String, _ instant: String) {
        #expect(DateParser.parse(text)?.rfc3339 == instant)
    }

    /// `&utm;` is not an entity: feedparser's lenient HTML reading turns
    /// `&utm_medium` in a guid into `&utm;_medium` (FeedKit's Ampersand.xml).
    @Test func anAmpersandBeforeWordCharactersIsNotAnEntity() throws {
        let xml = """
            <rss version="2.0"><channel><title>t</title><item><guid>http://a.example/?x=1&amp;utm_medium=rss</guid>\
            <link>http://a.example/?x=1&utm_medium=rss</link></item></channel></rss>
            """
        let entry = try FeedParser.parse(Array(xml.utf8)).entries.first
        #expect(entry?.id == "http://a.example/?x=1&utm_medium=rss")
        #expect(entry?.link == "http://a.example/?x=1&utm_medium=rss")
    }

    /// A relative guid stays as written (feedparser resolves reddit's
    /// `t3_42tizy` against the feed into `/t3_42tizy`): an id is a name, not a link.
    @Test func aRelativeGuidIsNotResolved() throws {
        let xml = """
            <rss version="2.0"><channel><title>t</title><item><guid isPermaLink="false">t3_42tizy</guid></item>\
            </channel></rss>
            """
        let entry = try FeedParser.parse(Array(xml.utf8), options: .init(url: "https://www.reddit.com/.rss")).entries
        #expect(entry.first?.id == "t3_42tizy")
    }

    /// A relative Atom id stays as written and is no link: resolved, it would
    /// depend on where the feed was fetched from (feedparser resolves it).
    @Test func aRelativeAtomIDIsNotResolved() throws {
        let xml = """
            <feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://ex.org/blog/"><title>t</title>\
            <entry><id>post-42</id><title>p</title></entry></feed>
            """
        let entry = try FeedParser.parse(Array(xml.utf8), options: .init(url: "https://ex.org/feeds/atom.xml"))
            .entries.first
        #expect(entry?.id == "post-42")
        #expect(entry?.link == nil)
    }
}
