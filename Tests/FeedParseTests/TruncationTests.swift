import FeedModel
import FeedParse
import Testing

/// A document cut short (the fetcher's size cap, a dropped connection) gives
/// the entries that arrived whole, and says so; the one cut off is dropped.
@Suite struct TruncationTests {
    static let rss = """
        <?xml version="1.0" encoding="utf-8"?>
        <rss version="2.0"><channel><title>Cut</title><link>http://example.org/</link>
        <item><title>one</title><guid>urn:1</guid></item>
        <item><title>two</title><guid>urn:2</guid></item>
        <item><title>three</title><guid>urn:3</guid><description>the body that was cut CUT here</description></item>
        </channel></rss>
        """

    static let rdf = """
        <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
        <channel rdf:about="http://example.org/"><title>Cut</title></channel>
        <item rdf:about="urn:1"><title>one</title></item>
        <item rdf:about="urn:2"><title>two</title></item>
        <item rdf:about="urn:3"><title>three</title><description>the body CUT here</description></item>
        </rdf:RDF>
        """

    static let atom = """
        <?xml version="1.0" encoding="utf-8"?>
        <feed xmlns="http://www.w3.org/2005/Atom"><title>Cut</title><id>urn:feed</id>
        <entry><title>one</title><id>urn:1</id></entry>
        <entry><title>two</title><id>urn:2</id></entry>
        <entry><title>three</title><id>urn:3</id><content type="html">&lt;p>the body CUT here&lt;/p></content></entry>
        </feed>
        """

    static let json = """
        {"version": "https://jsonfeed.org/version/1.1", "title": "Cut",
         "items": [
          {"id": "urn:1", "title": "one", "tags": ["a]", "{b"]},
          {"id": "urn:2", "title": "two \\"}]\\" braces in a string"},
          {"id": "urn:3", "title": "three", "content_text": "the body CUT here"}
         ]}
        """

    static let documents = [("rss", rss), ("rdf", rdf), ("atom", atom), ("json", json)]

    /// The document up to (not including) the marker `CUT`.
    static func cut(_ document: String) -> [UInt8] {
        let bytes = Array(document.utf8)
        let marker = Array("CUT".utf8)
        let at = (0...(bytes.count - marker.count)).first { bytes[$0..<($0 + marker.count)].elementsEqual(marker) }!
        return Array(bytes[..<at])
    }

    @Test(arguments: documents)
    func wholeDocumentHasThreeEntriesAndNoWarning(_ name: String, _ document: String) throws {
        let feed = try FeedParser.parse(Array(document.utf8))
        #expect(feed.entries.count == 3)
        #expect(feed.warnings.isEmpty, "\(feed.warnings)")
    }

    @Test(arguments: documents)
    func cutInTheThirdEntryKeepsTwo(_ name: String, _ document: String) throws {
        let feed = try FeedParser.parse(Self.cut(document))
        #expect(feed.entries.map { $0.title?.value.prefix(3) } == ["one", "two"])
        #expect(feed.entries.map(\.id) == ["urn:1", "urn:2"])
        #expect(feed.warnings.contains { $0.contains("truncated after 2 complete") }, "\(feed.warnings)")
        #expect(feed.metadata.title?.value == "Cut")
    }

    /// Cut between two entries: nothing is dropped, the cut is still reported.
    @Test func cutBetweenEntriesKeepsBoth() throws {
        let rss = Array(Self.rss.utf8)
        let end = Array("</item>".utf8)
        let second = (0..<rss.count).filter { rss[$0...].starts(with: end) }[1] + end.count
        let feed = try FeedParser.parse(Array(rss[..<second]))
        #expect(feed.entries.count == 2)
        #expect(feed.warnings.contains { $0 == "document truncated after 2 complete <item> elements" })
        let json = Array(Self.json.utf8)
        let afterSecond = Array(Self.json.utf8).indices.filter { json[$0...].starts(with: Array("},".utf8)) }[1] + 2
        let jsonFeed = try FeedParser.parse(Array(json[..<afterSecond]))
        #expect(jsonFeed.entries.count == 2)
        #expect(jsonFeed.warnings.contains { $0.contains("truncated after 2 items") })
    }

    @Test func cutInsideTheFirstEntryKeepsTheFeed() throws {
        let atom = Self.atom.replacingOccurrences(of: "<title>one</title>", with: "<title>one CUT</title>")
        let feed = try FeedParser.parse(Self.cut(atom))
        #expect(feed.entries.isEmpty)
        #expect(feed.metadata.title?.value == "Cut")
        #expect(feed.warnings.contains { $0.contains("truncated after 0 complete") })
    }

    /// JSON that is broken, not cut, is still an error.
    @Test func brokenJSONIsNotTakenForTruncated() {
        #expect(throws: ParseError.self) { try FeedParser.parse(Array(#"{"version": "x", "items": [}]}"#.utf8)) }
    }
}

/// A complete document whose raw HTML leaves tags unclosed (`<br>` in a
/// description) makes libxml2's recovery leave the item open at the end:
/// it was not cut, and nothing of it is dropped.
@Suite struct MismatchedTagsAreNotTruncationTests {
    static func feed(breaks: Int, trailer: String = "") -> String {
        let body = Array(repeating: "line<br>", count: breaks).joined() + "end"
        return """
            <?xml version="1.0" encoding="utf-8"?>
            <rss version="2.0"><channel><title>t</title><link>http://example.org/</link>
            <item><title>one</title><guid>urn:1</guid><description>\(body)</description></item>
            <item><title>two</title><guid>urn:2</guid><description>\(body)</description></item>
            <item><title>three</title><guid>urn:3</guid></item>
            </channel></rss>\(trailer)
            """
    }

    /// Raw `<br>` is closed before libxml2 sees it: every item stays its own.
    @Test(arguments: [1, 3, 5])
    func rawLineBreaksKeepEveryItem(_ breaks: Int) throws {
        let parsed = try FeedParser.parse(Array(Self.feed(breaks: breaks).utf8))
        #expect(parsed.entries.map(\.id) == ["urn:1", "urn:2", "urn:3"])
        #expect(parsed.entries.first?.summary?.value.hasSuffix("<br />end") == true)
        #expect(!parsed.warnings.contains { $0.contains("truncated") }, "\(parsed.warnings)")
    }

    /// Other unclosed tags leave libxml2's recovery with elements open at the
    /// end, and it nests the items that follow inside the first: the document
    /// was not cut, and the nested items are moved back out, each whole.
    @Test func unclosedInlineTagsAreNotTakenForACut() throws {
        let xml = Self.feed(breaks: 0).replacingOccurrences(of: "<description>end", with: "<description><b>bold <i>end")
        let parsed = try FeedParser.parse(Array(xml.utf8))
        #expect(parsed.entries.map(\.id) == ["urn:1", "urn:2", "urn:3"])
        #expect(parsed.entries.map(\.title?.value) == ["one", "two", "three"])
        #expect(!parsed.warnings.contains { $0.contains("truncated") }, "\(parsed.warnings)")
        #expect(parsed.warnings.contains { $0.contains("nested inside another were moved out") }, "\(parsed.warnings)")
    }

    @Test func closedAndXHTMLStyleVoidElementsAreLeftAlone() throws {
        let xml = Self.feed(breaks: 0).replacingOccurrences(
            of: "<description>end", with: "<description>a<br>b<br></br>c<img src=\"x.png\" />d<hr>end")
        let parsed = try FeedParser.parse(Array(xml.utf8))
        #expect(parsed.entries.map(\.id) == ["urn:1", "urn:2", "urn:3"])
        #expect(parsed.warnings.contains("4 unclosed HTML void elements (<br>, <img>) closed"), "\(parsed.warnings)")
    }

    @Test func anItemAfterACleanOneIsKept() throws {
        let xml = """
            <rss version="2.0"><channel><title>t</title>
            <item><title>one</title><guid>urn:1</guid></item>
            <item><title>two</title><guid>urn:2</guid><description>line<br>line<br>line<br>end</description></item>
            </channel></rss>
            """
        #expect(try FeedParser.parse(Array(xml.utf8)).entries.map(\.id) == ["urn:1", "urn:2"])
    }

    @Test func aCommentAfterTheRootIsStillTheEnd() throws {
        let parsed = try FeedParser.parse(Array(Self.feed(breaks: 5, trailer: "\n<!-- generated in 0.2 s -->\n").utf8))
        #expect(!parsed.warnings.contains { $0.contains("truncated") }, "\(parsed.warnings)")
    }
}

/// JSON Feed numbers out of range are no size or duration.
@Suite struct JSONFeedNumberTests {
    @Test func negativeHugeOrNonFiniteNumbersAreDropped() throws {
        let json = """
            {"version": "https://jsonfeed.org/version/1.1", "title": "t", "items": [{"id": "1", "attachments": [
              {"url": "http://a.example/1.mp3", "mime_type": "audio/mpeg", "size_in_bytes": -1e300, "duration_in_seconds": 1e300},
              {"url": "http://a.example/2.mp3", "mime_type": "audio/mpeg", "size_in_bytes": 1234, "duration_in_seconds": 61.5}]}]}
            """
        let enclosures = try FeedParser.parse(Array(json.utf8)).entries.first?.enclosures ?? []
        #expect(enclosures.map(\.length) == [nil, 1234])
        #expect(enclosures.map(\.duration) == [nil, 61])
    }
}

/// The void-element pass of repair: unclosed `<br>`/`<img>` in broken feeds, and what it must leave alone.
@Suite struct VoidElementRepairTests {
    static func items(_ description: String, declaration: String = #"<?xml version="1.0" encoding="utf-8"?>"#)
        -> String
    {
        """
        \(declaration)
        <rss version="2.0"><channel><title>t</title><link>http://example.org/</link>
        <item><title>one</title><guid>urn:1</guid><description>\(description)</description></item>
        <item><title>two</title><guid>urn:2</guid></item>
        <item><title>three</title><guid>urn:3</guid></item>
        </channel></rss>
        """
    }

    @Test(arguments: [
        #"a<img src="http://x/a?x=1&amp;y=2">b"#,
        "a<img\n  src=\"http://x/a.png\"\n  alt=\"x\">b",
        #"a<img alt="café" src="x.png">b"#,
        #"a<img alt="&nbsp;x" src="x.png">b"#,
    ])
    func realImageTagsAreClosed(_ description: String) throws {
        let parsed = try FeedParser.parse(Array(Self.items(description).utf8))
        #expect(parsed.entries.map(\.id) == ["urn:1", "urn:2", "urn:3"], "\(parsed.warnings)")
    }

    @Test func upperCaseAndSpacedForms() throws {
        let parsed = try FeedParser.parse(Array(Self.items("a<BR>b<br/ >c<Hr >d").utf8))
        #expect(parsed.entries.map(\.id) == ["urn:1", "urn:2", "urn:3"])
        let summary = parsed.entries.first?.summary?.value ?? ""
        #expect(summary == "a<br />b<br />c<hr />d", "\(summary)")
    }

    /// A document that parses is never touched, even one that goes through
    /// repair for another reason (Latin-1 here): its `<img>` may hold content.
    @Test func aWellFormedDocumentKeepsItsElements() throws {
        var bytes = Array(
            Self.items("d1").replacingOccurrences(of: "<description>", with: "<img>http://x/a.jpg</img><description>")
                .replacingOccurrences(of: "utf-8", with: "ISO-8859-1").utf8)
        bytes += Array("<!-- caf".utf8) + [0xE9] + Array(" -->".utf8)
        let parsed = try FeedParser.parse(bytes)
        #expect(parsed.entries.first?.summary?.value == "d1")
        #expect(!parsed.warnings.contains { $0.contains("well-formed") }, "\(parsed.warnings)")
    }

    /// A stray apostrophe in a void tag does not make the scan swallow the
    /// next tag, nor the CDATA section after it.
    @Test func aStrayQuoteDoesNotReachACDATASection() throws {
        let xml = Self.items("a<img alt=it's>b").replacingOccurrences(
            of: "<title>two</title>", with: "<title>two</title><description><![CDATA[don't> A &nbsp; B]]></description>"
        )
        let parsed = try FeedParser.parse(Array(xml.utf8))
        let two = parsed.entries.first { $0.id == "urn:2" }
        #expect(two?.summary?.value == "don't> A &nbsp; B")
    }
}

/// Repair and truncation together: a cut document with nested items, `<BR></br>`,
/// `<col>` before `</colgroup>`.
@Suite struct NestedAndCutTests {
    @Test func aCutDocumentWithNestedItemsKeepsItsCompleteOnes() throws {
        var xml = #"<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>t</title>"#
        xml += "<item><title>i0</title><guid>urn:0</guid><description><p>open</description></item>"
        for k in 1...4 { xml += "<item><title>i\(k)</title><guid>urn:\(k)</guid></item>" }
        xml += "<item><title>i5</title><guid>urn:5</guid><description>cut he"
        let parsed = try FeedParser.parse(Array(xml.utf8))
        #expect(parsed.entries.map(\.id) == ["urn:0", "urn:1", "urn:2", "urn:3", "urn:4"], "\(parsed.warnings)")
    }

    @Test func upperCaseClosedBreaksAreLowerCased() throws {
        let xml =
            #"<rss version="2.0"><channel><title>t</title><item><guid>urn:1</guid><description>x<BR></br>y<br>z</description></item></channel></rss>"#
        let summary = try FeedParser.parse(Array(xml.utf8)).entries.first?.summary?.value
        #expect(summary == "x<br />y<br />z", "\(summary ?? "nil")")
    }

    @Test func aColumnBeforeItsGroupsEndIsClosed() throws {
        let xml =
            #"<rss version="2.0"><channel><title>t</title><item><guid>urn:1</guid><description><table><colgroup><col width="1"></colgroup></table></description></item><item><guid>urn:2</guid></item></channel></rss>"#
        let parsed = try FeedParser.parse(Array(xml.utf8))
        #expect(parsed.entries.map(\.id) == ["urn:1", "urn:2"])
        #expect(parsed.entries.first?.summary?.value.contains("<col width=\"1\" /></colgroup>") == true)
    }

    /// Every item leaving a `<p>` open nests the next one a level deeper,
    /// until libxml2's depth limit ends the read: what follows is lost, and
    /// a warning says so (never a silent "every item recovered").
    @Test func theDepthLimitIsNamed() throws {
        var xml = #"<rss version="2.0"><channel><title>t</title>"#
        for k in 0..<400 { xml += "<item><guid>urn:\(k)</guid><description><p>text \(k)</description></item>" }
        xml += "</channel></rss>"
        let parsed = try FeedParser.parse(Array(xml.utf8))
        #expect(parsed.entries.count > 10 && parsed.entries.count < 400)
        #expect(parsed.warnings.contains { $0.contains("deeper than 256") }, "\(parsed.warnings)")
    }
}
