import FeedModel
import Testing

@testable import FeedParse

/// Elements mapped from their specs, one document each, including the
/// places where we read a document differently from feedparser on purpose.
@Suite struct SpecMappingTests {
    static func parse(_ xml: String) throws -> ParsedFeed {
        try FeedParser.parse(Array(xml.utf8), options: .init(url: "http://example.org/feed"))
    }

    static func rss(channel: String = "", item: String) -> String {
        """
        <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"
          xmlns:media="http://search.yahoo.com/mrss/" xmlns:dc="http://purl.org/dc/elements/1.1/">
        <channel>\(channel)<item>\(item)</item></channel></rss>
        """
    }

    // MARK: iTunes

    @Test func itunesNamespaceIsMatchedWhateverItsCase() throws {
        let feed = try Self.parse(
            #"<rss xmlns:i="HTTP://WWW.ITUNES.COM/DTDS/PODCAST-1.0.DTD"><channel><i:author>Jo</i:author></channel></rss>"#
        )
        #expect(feed.metadata.authors == [Person(name: "Jo")])
    }

    @Test func nestedItunesCategoriesAreEachATag() throws {
        let feed = try Self.parse(
            Self.rss(
                channel: #"<itunes:category text="Technology"><itunes:category text="Gadgets"/></itunes:category>"#,
                item: #"<itunes:category text="Arts"><itunes:category text="Design"/></itunes:category>"#))
        #expect(feed.metadata.categories.map(\.term) == ["Technology", "Gadgets"])
        #expect(feed.entries[0].categories.map(\.term) == ["Arts", "Design"])
        #expect(feed.entries[0].categories.allSatisfy { $0.scheme == "http://www.itunes.com/" })
    }

    @Test func itunesImageHrefElseURLAttribute() throws {
        let feed = try Self.parse(
            Self.rss(
                channel: #"<itunes:image url="http://a.b/i.png"/>"#, item: #"<itunes:image href="/ep.png"/>"#))
        #expect(feed.metadata.image == "http://a.b/i.png")
        #expect(feed.entries[0].image == "http://example.org/ep.png")
    }

    @Test func itunesSubtitleIsTheSummaryOnlyWithoutADescription() throws {
        let alone = try Self.parse(Self.rss(item: "<itunes:subtitle>Sub</itunes:subtitle>"))
        #expect(alone.entries[0].summary == Text("Sub"))
        let both = try Self.parse(
            Self.rss(item: "<itunes:subtitle>Sub</itunes:subtitle><description>Desc</description>"))
        #expect(both.entries[0].summary == Text("Desc", kind: .html))
    }

    @Test func channelDescriptionWinsOverItunesSummaryInEitherOrder() throws {
        let feed = try Self.parse(
            Self.rss(channel: "<itunes:summary>Sum</itunes:summary><description>Desc</description>", item: ""))
        #expect(feed.metadata.subtitle == Text("Desc", kind: .html))
    }

    @Test(arguments: [("1079", 1079), ("17:59", 1079), ("00:17:59", 1079), ("1:02:03", 3723), ("12.5", 12)])
    func itunesDurationIsSecondsOfTheEnclosure(_ text: String, _ seconds: Int) throws {
        let feed = try Self.parse(
            Self.rss(item: #"<enclosure url="http://a.b/x.mp3"/><itunes:duration>\#(text)</itunes:duration>"#))
        #expect(feed.entries[0].enclosures.first?.duration == seconds)
    }

    @Test(arguments: ["", "abc", "1:2:3:4", "-5", "1:"])
    func unreadableDurationIsNone(_ text: String) {
        #expect(MappingContext.seconds(fromDuration: text) == nil)
    }

    @Test func itunesExplicit() throws {
        let feed = try Self.parse(
            Self.rss(
                channel: "<itunes:explicit>true</itunes:explicit>", item: "<itunes:explicit>clean</itunes:explicit>"))
        #expect(feed.metadata.explicit == true)
        #expect(feed.entries[0].explicit == false)
    }

    /// `itunes:owner`, `webMaster` and `dc:publisher` are contacts, not
    /// authors (as in feedparser, which keeps them as the publisher): the
    /// merge credits a feed's entries with its authors, so a contact would be
    /// credited with every post.
    @Test func ownersWebmastersAndPublishersAreNotAuthors() throws {
        let contacts =
            "<itunes:owner><itunes:name>Studio</itunes:name><itunes:email>s@example.com</itunes:email></itunes:owner>"
            + "<webMaster>ops@example.com (Site Ops)</webMaster><dc:publisher>Publishing House</dc:publisher>"
        let alone = try Self.parse(Self.rss(channel: contacts, item: ""))
        #expect(alone.metadata.authors.isEmpty)
        let withAuthor = try Self.parse(Self.rss(channel: contacts + "<itunes:author>Host</itunes:author>", item: ""))
        #expect(withAuthor.metadata.authors == [Person(name: "Host")])
    }

    /// Authors come from the best-ranked source only: `managingEditor` and
    /// `itunes:author` are two spellings of one credit, not two authors.
    @Test func feedAuthorsComeFromTheBestRankedSourceOnly() throws {
        let feed = try Self.parse(
            Self.rss(
                channel: "<managingEditor>ed@example.com (Ed)</managingEditor><itunes:author>Pod Person</itunes:author>",
                item: ""))
        #expect(feed.metadata.authors == [Person(name: "Ed", email: "ed@example.com")])
    }

    @Test func itunesAuthorOfAnItemOnlyWithoutOtherAuthors() throws {
        let feed = try Self.parse(Self.rss(item: "<itunes:author>Voice</itunes:author><dc:creator>Writer</dc:creator>"))
        #expect(feed.entries[0].authors == [Person(name: "Writer")])
    }

    /// The parse stage leaves feed authors out of entries (the merge stage copies them).
    @Test func feedAuthorsAreNotCopiedIntoEntries() throws {
        let feed = try Self.parse(Self.rss(channel: "<managingEditor>ed@example.org (Ed)</managingEditor>", item: ""))
        #expect(feed.metadata.authors == [Person(name: "Ed", email: "ed@example.org")])
        #expect(feed.entries[0].authors.isEmpty)
    }

    // MARK: Media RSS

    @Test func mediaCategoryDefaultsToTheMediaRSSScheme() throws {
        let feed = try Self.parse(
            Self.rss(
                item: #"<media:category>a</media:category><media:category scheme="urn:x" label="B">b</media:category>"#)
        )
        #expect(
            feed.entries[0].categories == [
                Category(term: "a", scheme: "http://search.yahoo.com/mrss/category_schema"),
                Category(term: "b", scheme: "urn:x", label: "B"),
            ])
    }

    @Test func itemTitleWinsOverMediaTitle() throws {
        let feed = try Self.parse(Self.rss(item: "<media:title>m</media:title><title>t</title>"))
        #expect(feed.entries[0].title == Text("t"))
        let fallback = try Self.parse(Self.rss(item: #"<media:title type="html">&lt;b&gt;m&lt;/b&gt;</media:title>"#))
        #expect(fallback.entries[0].title == Text("<b>m</b>", kind: .html))
    }

    /// feedparser keeps `media:credit` apart; a credit in an author's role
    /// (or with no role) is the entry's author when nothing else names one.
    @Test func mediaCreditInAnAuthorRoleIsTheFallbackAuthor() throws {
        let feed = try Self.parse(
            Self.rss(
                item: #"<media:credit role="producer">P</media:credit><media:credit role="author">A</media:credit>"#))
        #expect(feed.entries[0].authors == [Person(name: "A")])
    }

    @Test func mediaContentIsAnEnclosureWithItsDuration() throws {
        let feed = try Self.parse(
            Self.rss(
                item:
                    #"<media:group><media:content url="v.mp4" fileSize="10" type="video/mp4" duration="61"/></media:group>"#
            ))
        #expect(
            feed.entries[0].enclosures == [
                Enclosure(url: "http://example.org/v.mp4", length: 10, type: "video/mp4", duration: 61)
            ])
    }

    // MARK: RSS

    @Test func emptyChannelDescriptionIsAnEmptySubtitle() throws {
        let feed = try Self.parse(
            "<rss version=\"2.0\"><channel><description/><link>http://e.com/</link></channel></rss>")
        #expect(feed.metadata.subtitle == Text("", kind: .html))
        #expect(feed.metadata.link == "http://e.com/")
    }

    /// RSS 2.0 lets a reader take a permalink guid as a URL to open in a
    /// browser: only http(s) guids become links. feedparser takes any
    /// permalink guid (a `tag:` or `urn:` too).
    @Test func onlyAWebGUIDIsALink() throws {
        let web = try Self.parse(Self.rss(item: "<guid>https://e.com/1</guid>"))
        #expect(web.entries[0].link == "https://e.com/1")
        let tag = try Self.parse(Self.rss(item: "<guid>tag:e.com,2004:1</guid>"))
        #expect(tag.entries[0].link == nil)
        let notPermalink = try Self.parse(Self.rss(item: #"<guid isPermaLink="false">https://e.com/1</guid>"#))
        #expect(notPermalink.entries[0].link == nil)
    }

    @Test(arguments: [
        "http://backend.userland.com/rss2", "http://backend.userland.com/rss", "http://blogs.law.harvard.edu/tech/rss",
        "http://backend.userland.com/rss2.1",
    ])
    func userlandNamespacesAreRSS2(_ uri: String) throws {
        let feed = try Self.parse(
            #"<rss xmlns="\#(uri)"><channel><description>D</description><item><title>T</title></item></channel></rss>"#)
        #expect(feed.metadata.subtitle == Text("D", kind: .html))
        #expect(feed.entries.map(\.title) == [Text("T")])
    }

    // MARK: Atom

    @Test(arguments: [
        "http://purl.org/atom/ns#", "http://example.com/newformat#", "http://example.com/necho", "http://necho.org/ns#",
        "http://purl.org/echo/", "http://purl.org/pie/",
    ])
    func preAtomDraftNamespacesAreAtom03(_ uri: String) throws {
        let feed = try Self.parse(#"<feed version="0.3" xmlns="\#(uri)"><title>Example Atom</title></feed>"#)
        #expect(feed.format == .atom03)
        #expect(feed.metadata.title == Text("Example Atom"))
    }

    @Test func entryDocumentIsAFeedOfOneEntry() throws {
        let feed = try Self.parse(
            #"<entry xmlns="http://www.w3.org/2005/Atom"><id>urn:x:1</id><title>One</title></entry>"#)
        #expect(feed.format == .atom10)
        #expect(feed.entries.count == 1)
        #expect(feed.entries[0].id == "urn:x:1")
    }

    /// RFC 4287 makes `id` an identifier, not an address; but an entry with
    /// no alternate link whose id is an http(s) URL is, in practice, at that
    /// URL. feedparser leaves such an entry without a link.
    @Test func webIDIsTheLinkOfAnEntryWithout() throws {
        let feed = try Self.parse(
            """
            <feed xmlns="http://www.w3.org/2005/Atom">
            <entry><id>http://e.com/1</id></entry>
            <entry><id>http://e.com/2</id><link href="http://e.com/two"/></entry>
            <entry><id>tag:e.com,2005:3</id></entry></feed>
            """)
        #expect(feed.entries.map(\.link) == ["http://e.com/1", "http://e.com/two", nil])
    }

    /// Of `source`, only the authors apply to the entry (RFC 4287 4.2.1), when it names none.
    @Test func sourceElementLendsOnlyItsAuthors() throws {
        let feed = try Self.parse(
            """
            <feed xmlns="http://www.w3.org/2005/Atom"><entry><id>urn:x:1</id>
            <source><title>Other</title><author><name>Other author</name></author>
            <link href="http://other.example/"/><updated>2001-01-01T00:00:00Z</updated></source>
            </entry></feed>
            """)
        #expect(feed.entries[0].title == nil)
        #expect(feed.entries[0].authors == [Person(name: "Other author")])
        #expect(feed.entries[0].link == nil)
        #expect(feed.entries[0].updated == nil)
    }

    @Test func dublinCoreInAtomFeed() throws {
        let feed = try Self.parse(
            """
            <feed xmlns="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/elements/1.1/">
            <dc:creator>Jo &lt;jo@example.com&gt;</dc:creator><dc:language>de</dc:language></feed>
            """)
        #expect(feed.metadata.authors == [Person(name: "Jo", email: "jo@example.com")])
        #expect(feed.metadata.language == "de")
    }

    // MARK: Google Play

    @Test func googlePlayTagsAreReadAsTheirITunesTwins() throws {
        let feed = try Self.parse(
            """
            <rss xmlns:googleplay="http://www.google.com/schemas/play-podcasts/1.0"><channel>
            <googleplay:author>GP Author</googleplay:author><googleplay:description>GP desc</googleplay:description>
            <googleplay:image href="http://a.b/gp.png"/><googleplay:category text="Technology"/>
            <item><googleplay:description>Episode</googleplay:description></item></channel></rss>
            """)
        #expect(feed.metadata.authors == [Person(name: "GP Author")])
        #expect(feed.metadata.subtitle == Text("GP desc"))
        #expect(feed.metadata.image == "http://a.b/gp.png")
        #expect(feed.metadata.categories.map(\.term) == ["Technology"])
        #expect(feed.entries[0].summary == Text("Episode"))
    }

    // MARK: Dublin Core

    @Test func dcmiTermsNamespaceCarriesTheFifteenElementsToo() throws {
        let feed = try Self.parse(
            """
            <rss xmlns:dcterms="http://purl.org/dc/terms/"><channel><item>
            <dcterms:title>T</dcterms:title><dcterms:creator>C</dcterms:creator>
            <dcterms:abstract>A</dcterms:abstract><dcterms:created>2020-01-02T00:00:00Z</dcterms:created>
            </item></channel></rss>
            """)
        let entry = feed.entries[0]
        #expect(entry.title == Text("T"))
        #expect(entry.authors == [Person(name: "C")])
        #expect(entry.summary == Text("A", kind: .html))
        #expect(entry.published?.rfc3339 == "2020-01-02T00:00:00Z")
    }

    @Test func languageIsABCP47Tag() throws {
        let atom = try Self.parse(#"<feed version="0.3" xmlns="http://purl.org/atom/ns#" xml:lang="en_US"/>"#)
        #expect(atom.metadata.language == "en-US")
        let rss = try Self.parse(
            Self.rss(channel: "<language> pt_BR </language>", item: "<dc:language>de_AT</dc:language>"))
        #expect(rss.metadata.language == "pt-BR")
        #expect(rss.entries[0].language == "de-AT")
    }
}
