import FeedModel
import FeedParse
import Testing

/// `xml:base` (XML Base, RFC 3986 section 5) on every element and attribute
/// that carries a URI, inside HTML and XHTML content too.
@Suite struct XMLBaseTests {
    static let documentURL = "http://example.com/feeds/main.xml"

    func parse(_ document: String, url: String? = documentURL) throws -> ParsedFeed {
        try FeedParser.parse(Array(document.utf8), options: .init(url: url))
    }

    func atom(_ entry: String, feedBase: String = "http://example.org/a/") -> String {
        """
        <feed xmlns="http://www.w3.org/2005/Atom" xml:base="\(feedBase)"><title>t</title><id>urn:f</id>
        <entry><id>urn:1</id><title>e</title>\(entry)</entry></feed>
        """
    }

    @Test func basesChainFromTheDocumentURLDown() throws {
        let feed = try parse(atom(#"<link xml:base="b/" href="c"/>"#))
        #expect(feed.entries.first?.link == "http://example.org/a/b/c")
        // A relative xml:base on the root is relative to the document URL.
        let relative = try parse(atom(#"<link href="c"/>"#, feedBase: "/root/"))
        #expect(relative.entries.first?.link == "http://example.com/root/c")
        let dotted = try parse(atom(#"<link xml:base="../up/" href="c?q#f"/>"#, feedBase: "x/y/"))
        #expect(dotted.entries.first?.link == "http://example.com/feeds/x/up/c?q#f")
    }

    /// An empty xml:base is a same-document reference: the base in scope,
    /// without its fragment.
    @Test func emptyBaseKeepsTheBaseInScope() throws {
        let feed = try parse(atom(#"<link xml:base="" href="c"/>"#, feedBase: "http://example.org/a/page#frag"))
        #expect(feed.entries.first?.link == "http://example.org/a/c")
    }

    @Test func baseIsAnIRI() throws {
        let feed = try parse(atom(#"<link href="feed"/>"#, feedBase: "http://www.詹姆斯.com/"))
        #expect(feed.entries.first?.link == "http://www.詹姆斯.com/feed")
    }

    @Test func personURIsAndEnclosuresFollowTheBase() throws {
        let feed = try parse(
            atom(
                #"<author xml:base="people/"><name>A</name><uri>a</uri></author>"#
                    + #"<contributor><name>C</name><uri>/c</uri></contributor>"#
                    + #"<link rel="enclosure" href="m.mp3" length="1" type="audio/mpeg"/>"#))
        let entry = try #require(feed.entries.first)
        #expect(entry.authors.first?.uri == "http://example.org/a/people/a")
        #expect(entry.contributors.first?.uri == "http://example.org/c")
        #expect(entry.enclosures.first?.url == "http://example.org/a/m.mp3")
    }

    @Test func everyURLAttributeInHTMLContentIsResolved() throws {
        let html = """
            <a href="h">a</a><img src="i.png" longdesc="d.html" usemap="#m" srcset="s1.png, /s2.png 2x,s3.png 100w">\
            <blockquote cite="q"></blockquote><video poster="p.jpg" src="v.mp4"></video>\
            <form action="f"></form><object data="o" codebase="cb/" classid="cl"></object>\
            <table background="bg.png"></table><a href="https://abs.example/">x</a><a href="mailto:x@y">m</a>
            """
        let escaped = html.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        let feed = try parse(atom(#"<content type="html" xml:base="c/">\#(escaped)</content>"#))
        let value = try #require(feed.entries.first?.content.first?.value)
        let base = "http://example.org/a/c/"
        for expected in [
            #"href="\#(base)h""#, #"src="\#(base)i.png""#, #"longdesc="\#(base)d.html""#, #"usemap="\#(base)#m""#,
            #"srcset="\#(base)s1.png, http://example.org/s2.png 2x, \#(base)s3.png 100w""#, #"cite="\#(base)q""#,
            #"poster="\#(base)p.jpg""#, #"src="\#(base)v.mp4""#, #"action="\#(base)f""#, #"data="\#(base)o""#,
            #"codebase="\#(base)cb/""#, #"classid="\#(base)cl""#, #"background="\#(base)bg.png""#,
            #"href="https://abs.example/""#, #"href="mailto:x@y""#,
        ] {
            #expect(value.contains(expected), "\(expected) in \(value)")
        }
    }

    /// In inline XHTML, xml:base may sit on the content's `div` and on any
    /// element inside; each applies to its own element and what it contains.
    @Test func xmlBaseInsideXHTMLContent() throws {
        let content = """
            <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml" xml:base="d/">\
            <a href="one">1</a><p xml:base="/p/"><a href="two">2</a><img src="i.png" xml:base="img/"/></p>\
            <a href="three">3</a></div></content>
            """
        let feed = try parse(atom(content))
        let value = try #require(feed.entries.first?.content.first?.value)
        #expect(value.contains(#"href="http://example.org/a/d/one""#), "\(value)")
        #expect(value.contains(#"href="http://example.org/p/two""#), "\(value)")
        #expect(value.contains(#"src="http://example.org/p/img/i.png""#), "\(value)")
        #expect(value.contains(#"href="http://example.org/a/d/three""#), "\(value)")
    }

    @Test func rssElementsFollowTheBase() throws {
        let rss = """
            <rss version="2.0" xml:base="http://example.org/blog/"><channel><title>t</title><link>home</link>
            <item xml:base="2024/"><title>i</title><link>post</link><comments>post#c</comments>
            <enclosure url="ep.mp3" length="1" type="audio/mpeg"/>
            <description>&lt;a href="rel"&gt;x&lt;/a&gt;</description></item></channel></rss>
            """
        let feed = try parse(rss)
        #expect(feed.metadata.link == "http://example.org/blog/home")
        let entry = try #require(feed.entries.first)
        #expect(entry.link == "http://example.org/blog/2024/post")
        #expect(entry.comments == "http://example.org/blog/2024/post#c")
        #expect(entry.enclosures.first?.url == "http://example.org/blog/2024/ep.mp3")
        #expect(entry.summary?.value.contains(#"href="http://example.org/blog/2024/rel""#) == true)
    }

    @Test func documentURLAloneIsTheBase() throws {
        let rss = #"<rss version="2.0"><channel><title>t</title><item><link>/x</link></item></channel></rss>"#
        #expect(try parse(rss).entries.first?.link == "http://example.com/x")
        #expect(try parse(rss, url: nil).entries.first?.link == "/x")
    }
}

@Suite struct CDFBaseTests {
    /// CDF's `BASE` attribute on the channel is the base of its relative URLs.
    @Test func channelBaseAttributeIsTheBase() throws {
        let cdf = """
            <CHANNEL BASE="http://base.example.org/" HREF="http://www.example.org/"><TITLE>c</TITLE>
            <ITEM HREF="/item/1"><TITLE>i</TITLE><ABSTRACT>&lt;a href="x"&gt;x&lt;/a&gt;</ABSTRACT></ITEM></CHANNEL>
            """
        let feed = try FeedParser.parse(Array(cdf.utf8), options: .init(url: "http://doc.example/feed.cdf"))
        #expect(feed.entries.first?.link == "http://base.example.org/item/1")
    }
}
