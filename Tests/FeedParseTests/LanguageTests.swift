import FeedModel
import Testing
import XMLTree

@testable import FeedParse

/// `xml:lang` inheritance (XML 1.0 section 2.12) and the language elements
/// of RSS and Dublin Core.
@Suite struct LanguageTests {
    func document(_ text: String) throws -> DOMDocument { try DOMDocument(parsing: Array(text.utf8)) }

    @Test func entriesInheritTheXMLLangInScope() throws {
        let feed = try FeedParser.parse(
            Array(
                """
                <feed xmlns="http://www.w3.org/2005/Atom" xml:lang="fr"><title>t</title>
                <entry><id>1</id></entry><entry xml:lang="de_AT"><id>2</id></entry><entry xml:lang=""><id>3</id></entry>
                </feed>
                """.utf8))
        #expect(feed.entries.map(\.language) == ["fr", "de-AT", nil])
    }

    @Test func rssItemsInheritFromTheRootOrChannel() throws {
        let feed = try FeedParser.parse(
            Array(
                """
                <rss version="2.0" xml:lang="en"><channel xml:lang="pt-BR"><title>t</title>
                <item><title>a</title></item><item xml:lang="es"><title>b</title></item></channel></rss>
                """.utf8))
        #expect(feed.entries.map(\.language) == ["pt-BR", "es"])
    }

    @Test func languageTagsAreNormalized() {
        #expect(DOMElement.languageTag(" en_US ") == "en-US")
        #expect(DOMElement.languageTag("") == nil)
        #expect(DOMElement.languageTag("x-klingon") == "x-klingon")
    }

    @Test func feedLanguageOrder() throws {
        let root = try document(#"<feed xml:lang="en_GB"><title>t</title></feed>"#).root
        let context = MappingContext(documentURL: nil)
        #expect(context.feedLanguage(root: root, declared: "de") == "en-GB")
        #expect(context.feedLanguage(root: root, declared: "de", rssFirst: true) == "de")
        let bare = try document("<rss><channel/></rss>").root
        #expect(context.feedLanguage(root: bare, declared: nil) == nil)
        #expect(context.feedLanguage(root: bare, declared: "en_us") == "en-us")
    }

    @Test func entryLanguageOrder() throws {
        let doc = try document(#"<rss xml:lang="fr"><channel><item/><item xml:lang=""/></channel></rss>"#)
        let items = Array(try #require(doc.root.child("channel")).children)
        let context = MappingContext(documentURL: nil)
        #expect(context.entryLanguage(items[0], declared: "de", feed: "en") == "de")
        #expect(context.entryLanguage(items[0], declared: nil, feed: "en") == "fr")
        #expect(context.entryLanguage(items[1], declared: nil, feed: "en") == "en")
        let plain = try document("<rss><channel><item/></channel></rss>")
        let item = try #require(plain.root.child("channel")?.child("item"))
        #expect(context.entryLanguage(item, declared: nil, feed: "en") == "en")
        #expect(context.entryLanguage(item, declared: nil, feed: nil) == nil)
    }
}
