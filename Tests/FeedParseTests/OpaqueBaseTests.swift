import FeedModel
import Testing

@testable import FeedParse

/// A base URL whose path is opaque (`javascript:`, `mailto:`, `urn:`: no
/// authority, a path that does not start with "/") cannot be a base: the URL
/// Standard fails to parse a relative URL against it, and RFC 3986 resolution
/// would glue the reference onto that scheme (`javascript:/abs`). Such a base
/// is ignored; the one in scope before it still counts.
@Suite struct OpaqueBaseTests {
    @Test func relativeReferenceIsNotResolvedAgainstAnOpaqueBase() {
        #expect(URLReference.resolve("/abs", against: "javascript:alert(1);") == "/abs")
        #expect(URLReference.resolve("page.html", against: "mailto:someone@example.org") == "page.html")
        #expect(URLReference.resolve("x", against: "urn:isbn:0451450523") == "x")
        // A hierarchical base still resolves, with or without an authority.
        #expect(URLReference.resolve("/abs", against: "file:///srv/feed.xml") == "file:///abs")
        #expect(URLReference.resolve("b", against: "http://example.org/a/") == "http://example.org/a/b")
    }

    @Test func opaqueDocumentURLLeavesLinksRelative() throws {
        let document = #"<feed xmlns="http://www.w3.org/2005/Atom"><link rel="alternate" href="/abs"/></feed>"#
        let feed = try FeedParser.parse(Array(document.utf8), options: .init(url: "javascript:alert('x');"))
        #expect(feed.metadata.link == "/abs")
    }

    @Test func opaqueXMLBaseIsIgnoredInFavourOfTheOuterBase() throws {
        let document = """
            <feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://example.org/dir/">
            <entry xml:base="javascript:void(0)"><id>urn:1</id><link href="post.html"/></entry></feed>
            """
        let feed = try FeedParser.parse(Array(document.utf8), options: .init(url: "http://example.org/feed.xml"))
        #expect(feed.entries.first?.link == "http://example.org/dir/post.html")
    }
}
