import FeedModel
import FeedParse
import Testing

/// The hubs a feed names for WebSub discovery, in each format, made absolute like its other links.
@Suite struct WebSubLinkTests {
    @Test func atomRSSAndJSONFeedNameTheirHubs() throws {
        let atom = """
            <feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://blog.example/">
            <title>t</title><id>urn:x</id><link rel="hub" href="/hub"/><link rel="HUB" href="https://h2/"/>
            <link rel="self" href="feed.atom"/><link href="https://not-a-hub/"/></feed>
            """
        let parsedAtom = try FeedParser.parse(Array(atom.utf8))
        #expect(parsedAtom.metadata.hubs == ["https://blog.example/hub", "https://h2/"])
        #expect(parsedAtom.metadata.selfLink == "https://blog.example/feed.atom")

        let rss = """
            <rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>t</title>
            <link>https://blog.example/</link><atom:link rel="hub" href="https://pubsubhubbub.example/"/>
            <atom:link rel="self" href="https://blog.example/rss"/></channel></rss>
            """
        #expect(try FeedParser.parse(Array(rss.utf8)).metadata.hubs == ["https://pubsubhubbub.example/"])

        let json = """
            {"version": "https://jsonfeed.org/version/1.1", "title": "t", "items": [],
             "feed_url": "https://blog.example/feed.json",
             "hubs": [{"type": "WebSub", "url": "https://hub.example/"}, {"type": "x"}, "junk"]}
            """
        #expect(try FeedParser.parse(Array(json.utf8)).metadata.hubs == ["https://hub.example/"])
    }
}
