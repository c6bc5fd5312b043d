import Subscriptions
import Testing

/// An OPML list read as a stream of elements: folders from nested outlines,
/// the head's fields, what is skipped and said, and the errors with their lines.
@Suite struct OPMLReaderTests {
    func read(_ text: String, local: Bool = true) throws(SubscriptionError) -> SubscriptionList {
        var list = SubscriptionList()
        try list.add(opml: Array(text.utf8), source: "list.opml", localFile: nil, namesLocalFiles: local)
        return list
    }

    @Test func foldersHeadAndOutlines() throws {
        let list = try read(
            """
            <?xml version="1.0"?>
            <opml version="2.0">
              <head><title> Planet &amp; Co </title><ownerName>Ann</ownerName><ownerId>mailto:a@x</ownerId>
                <htmlUrl>https://planet.example/</htmlUrl></head>
              <body>
                <outline xmlUrl="https://a.example/feed" title="A" face="a.png" unknown:x="1" xmlns:unknown="urn:u"/>
                <outline text="Friends">
                  <outline text="B" xmlUrl="https://b.example/feed" type="rss"/>
                  <outline text="Deeper"><outline xmlUrl="https://c.example/feed" type="podcast"/></outline>
                </outline>
                <outline text="Empty folder"/>
                <outline xmlUrl="https://d.example/feed" text="D"><outline xmlUrl="https://e.example/feed"/></outline>
                <section><outline xmlUrl="https://ignored.example/feed"/></section>
              </body>
            </opml>
            """)
        #expect(list.title == "Planet & Co" && list.ownerName == "Ann")
        #expect(list.homePage == "https://planet.example/")
        #expect(
            list.subscriptions.map(\.url) == [
                "https://a.example/feed", "https://b.example/feed", "https://c.example/feed", "https://d.example/feed",
                "https://e.example/feed",
            ])
        #expect(list.subscriptions.map(\.folder) == [[], ["Friends"], ["Friends", "Deeper"], [], ["D"]])
        #expect(list.subscriptions[0].properties == ["face": "a.png"], "namespaced attributes are not properties")
        #expect(list.subscriptions[0].title == "A" && list.subscriptions[1].title == "B")
        #expect(
            list.warnings == [
                "list.opml:9: outline of type \"podcast\" read as a feed",
                "list.opml:11: outline \"Empty folder\" has no xmlUrl; skipped",
            ])
    }

    @Test func aFetchedListGivesNoFilterSettings() throws {
        let list = try read(
            #"<opml><body><outline xmlUrl="https://a.example/f" filter="x" face="f"/></body></opml>"#, local: false)
        #expect(list.subscriptions.first?.properties == ["face": "f"])
        #expect(list.warnings.first?.contains("filter is not taken") == true)
    }

    @Test func errorsSayWhatAndWhere() {
        #expect(throws: SubscriptionError.self) { try read("<opml><head/></opml>") }
        do {
            _ = try read("<opml>\n<body>\n<outline xmlUrl=\"https://a.example/f\">\n</body></opml>")
            Issue.record("a list that is not well-formed is refused")
        } catch {
            #expect(error.message.hasPrefix("malformed OPML"), "\(error)")
            #expect(error.line == 4, "\(error)")
        }
        do {
            _ = try read("<rss><channel/></rss>")
            Issue.record("not OPML")
        } catch {
            #expect(error.message == "not OPML: no <opml><body>")
        }
        // A list that is well-formed once repaired (an HTML entity) is read.
        #expect(
            (try? read("<opml><body><outline text=\"Caf&eacute;\" xmlUrl=\"https://a.example/f\"/></body></opml>"))?
                .subscriptions.first?.title == "Café")
    }
}
