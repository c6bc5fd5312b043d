import FeedModel
import FeedParse
import Foundation
import TestSupport
import Testing

@testable import EntryFilters

/// The entry a filter sees is the one Venus's `reconstitute` writes: text
/// as text nodes, markup as XHTML, an `id` and an `updated` always, the
/// feed and its `planet:` properties in `source`; and what a filter leaves
/// untouched is read back as the entry had it.
@Suite struct VenusEntryDocumentTests {
    /// An item with neither guid nor pubDate, one with a link only, one with a title only.
    static let document = """
        <rss version="2.0"><channel><title>Blog</title><link>http://blog.example/</link>
        <pubDate>Mon, 31 Dec 2012 12:00:00 GMT</pubDate>
        <item><title>Notes on RDF</title><link>http://blog.example/1</link>
          <description>Plain words &amp;amp; more</description></item>
        <item><title>Only a title</title></item>
        <item><guid isPermaLink="false">urn:3</guid><title>Marked up</title>
          <description>&lt;p&gt;With &lt;b&gt;bold&lt;/b&gt;&lt;/p&gt;</description>
          <pubDate>Tue, 01 May 2012 10:00:00 GMT</pubDate></item>
        </channel></rss>
        """

    static let feedURL = "http://blog.example/feed"

    func feed() throws -> ParsedFeed { try FeedParser.parse(Array(Self.document.utf8), options: .init(url: nil)) }

    func filterFeed(_ feed: ParsedFeed, properties: [String: String] = [:]) -> FilterFeed {
        FilterFeed(
            metadata: feed.metadata, format: feed.format, url: Self.feedURL, properties: properties,
            now: Timestamp(secondsSince1970: 1_733_011_200))
    }

    /// The filters' results on the sample feed.
    func filtered(_ steps: [EntryFilter], properties: [String: String] = [:]) throws -> [Entry] {
        var feed = try feed()
        EntryFilters(steps, names: steps.indices.map(String.init))
            .apply(to: &feed, feedURL: Self.feedURL, properties: properties)
        #expect(feed.warnings.allSatisfy { !EntryFilters.isTrouble($0) }, "\(feed.warnings)")
        return feed.entries
    }

    func stylesheet(_ templates: String) throws -> EntryFilter {
        let path = NSTemporaryDirectory() + "venus-entry-\(UUID().uuidString).xslt"
        try """
        <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
          xmlns:atom="http://www.w3.org/2005/Atom" xmlns:xhtml="http://www.w3.org/1999/xhtml"
          xmlns:planet="http://planet.intertwingly.net/">
          \(templates)
          <xsl:template match="@*|node()"><xsl:copy><xsl:apply-templates select="@*|node()"/></xsl:copy></xsl:template>
        </xsl:stylesheet>
        """.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try EntryFilter.stylesheet(path: path)
    }

    @Test func aPlainTitleIsATextNodeAndMarkupAnXHTMLDiv() throws {
        let feed = try feed()
        let first = NormalizedEntry.document(feed.entries[0], in: filterFeed(feed)).text
        #expect(first.contains("<title>Notes on RDF</title>"), "\(first)")
        // HTML whose sanitized form is text is a text node too, as reconstitute's html5lib pass makes it.
        #expect(first.contains("<summary>Plain words &amp; more</summary>"), "\(first)")
        let third = NormalizedEntry.document(feed.entries[2], in: filterFeed(feed)).text
        #expect(
            third.contains(
                "<summary type=\"xhtml\"><div xmlns=\"http://www.w3.org/1999/xhtml\"><p>With <b>bold</b></p></div>"),
            "\(third)")
    }

    @Test func aFilterMatchingTitleTextWorksOnAPlainTitle() throws {
        let seen = try stylesheet(
            "<xsl:template match=\"atom:title/text()\">Seen: <xsl:value-of select=\".\"/></xsl:template>")
        let titles = try filtered([seen]).map { $0.title?.value }
        #expect(titles == ["Seen: Notes on RDF", "Seen: Only a title", "Seen: Marked up"])
    }

    @Test func everyEntryHasVenusIDAndUpdated() throws {
        let feed = try feed()
        let documents = feed.entries.map { NormalizedEntry.document($0, in: filterFeed(feed)) }
        // reconstitute's id(): the id, else the link, else the base, "/" and the MD5 of the title.
        #expect(
            documents.map(\.id) == ["http://blog.example/1", Self.feedURL + "/" + MD5.hex("Only a title"), "urn:3"])
        #expect(documents[1].text.contains("<id>\(Self.feedURL)/\(MD5.hex("Only a title"))</id>"))
        // updated: the entry's (an RSS pubDate), else the feed's date.
        #expect(
            documents.map(\.updated.rfc3339) == [
                "2012-12-31T12:00:00Z", "2012-12-31T12:00:00Z", "2012-05-01T10:00:00Z",
            ])
        let sifter = try EntryFilter.xpathSifter(require: "/atom:entry/atom:id\n/atom:entry/atom:updated", exclude: nil)
        #expect(try filtered([sifter]).count == 3)
    }

    @Test func md5IsRFC1321s() {
        // RFC 1321's test suite.
        #expect(MD5.hex("") == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(MD5.hex("abc") == "900150983cd24fb0d6963f7d28e17f72")
        #expect(MD5.hex("message digest") == "f96b697d7cb7938d525a2f31aaf161d0")
        #expect(
            MD5.hex("12345678901234567890123456789012345678901234567890123456789012345678901234567890")
                == "57edf4a22be3c955ac49da2e2107b67a")
    }

    @Test func whatAFilterLeavesUntouchedStaysAsTheFeedGaveIt() throws {
        let identity = try stylesheet("")
        let entries = try filtered([identity])
        let original = try feed().entries
        // The fallback id and updated are not read back as the feed's.
        #expect(entries.map(\.id) == original.map(\.id))
        #expect(entries.map(\.updated) == original.map(\.updated))
        #expect(entries.map(\.published) == original.map(\.published))
        #expect(entries.allSatisfy { $0.authors.isEmpty && $0.language == nil })
        #expect(entries.map { $0.title?.value } == original.map { $0.title?.value })
        // A filter's own change to updated is kept.
        let redate = try stylesheet(
            "<xsl:template match=\"atom:entry/atom:updated\"><updated xmlns=\"http://www.w3.org/2005/Atom\">2020-01-01T00:00:00Z</updated></xsl:template>"
        )
        #expect(try filtered([redate]).allSatisfy { $0.updated?.rfc3339 == "2020-01-01T00:00:00Z" })
    }

    @Test func theSourceCarriesTheFeedAndItsPlanetProperties() throws {
        let properties = ["name": "Ann's Blog", "face": "ann.png", "http_status": "200"]
        let sifter = try EntryFilter.xpathSifter(
            require: """
                /atom:entry/atom:source/planet:face = 'ann.png'
                /atom:entry/atom:source/planet:css-id = 'ann-s-blog'
                /atom:entry/atom:source/planet:http_status = '200'
                /atom:entry/atom:source/planet:format = 'rss20'
                /atom:entry/atom:source/atom:title = 'Blog'
                /atom:entry/atom:source/atom:id = 'http://blog.example/'
                /atom:entry/atom:source/atom:link[@rel='self'][@type='application/rss+xml']/@href = '\(Self.feedURL)'
                /atom:entry/atom:source/atom:updated = '2012-12-31T12:00:00Z'
                /atom:entry/atom:source/atom:author/atom:name = "Ann's Blog"
                """, exclude: nil)
        let feed = try feed()
        let written = NormalizedEntry.document(feed.entries[0], in: filterFeed(feed, properties: properties)).text
        #expect(try filtered([sifter], properties: properties).count == 3, "\(written)")
        #expect(try filtered([sifter]).isEmpty, "the sifter holds without the properties")
    }

    @Test func ignoreInFeedUpdatedForgetsAnRSSPubDateAsVenusDoes() throws {
        // Venus's feed parser reads an RSS pubDate as `updated`.
        let entries = try filtered([.ignore(["updated"])])
        #expect(entries.allSatisfy { $0.published == nil && $0.updated == nil })
    }

    static let venus = SharedCorpora.path("venus")?.path ?? ""
    static let python2 =
        FileManager.default.fileExists(atPath: venus + "/planet/reconstitute.py")
        && (try? Self.python(["--version"]).status) == 0

    /// Runs python2.7 in Venus's folder, waiting on this thread: for `python2`'s lazy initializer,
    /// which cannot be async; a test awaits the overload below.
    static func python(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let (process, pipe) = try startPython(arguments)
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// `python(_:)` for a test: it reads the output, and waits for the end, without holding a thread
    /// of Swift's cooperative pool.
    static func python(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let (process, pipe) = try startPython(arguments)
        let data = await pipe.fileHandleForReading.readToEndOffPool()
        await process.exited()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    private static func startPython(_ arguments: [String]) throws -> (ChildProcess, Pipe) {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python2.7"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["PYENV_VERSION": "2.7.18"]) { $1 }
        process.currentDirectoryURL = URL(fileURLWithPath: venus)
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, pipe)
    }

    /// The elements both sides must write alike: id, title, summary, and updated's date.
    static func comparable(_ document: String) -> [String] {
        let pattern = try! NSRegularExpression(
            pattern: "<id>[^<]*</id>|<title[ >].*?</title>|<summary[ >].*?</summary>|<updated[^>]*>[^<]*</updated>")
        return pattern.matches(in: document, range: NSRange(document.startIndex..., in: document)).map {
            String(document[Range($0.range, in: document)!])
                .replacingOccurrences(of: #" planet:format="[^"]*""#, with: "", options: .regularExpression)
        }
    }

    /// Venus's own `reconstitute` (under Python 2.7) on the sample: the same text nodes, XHTML, ids and dates.
    @Test(.tags(.corpus), .enabled(if: python2, "needs python2.7 (PYENV_VERSION=2.7.18) and ../shared/corpora/venus"))
    func venusReconstituteWritesTheSameEntries() async throws {
        let sample = NSTemporaryDirectory() + "venus-sample-\(UUID().uuidString).xml"
        try Self.document.write(toFile: sample, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: sample) }
        let script = """
            import sys; sys.path.insert(0, '.')
            from planet import feedparser, reconstitute
            data = feedparser.parse(open(sys.argv[1]).read())
            for entry in data.entries:
                if not entry.get('id'): entry['id'] = reconstitute.id(None, entry)
                print reconstitute.reconstitute(data, entry).toxml().encode('utf-8')
            """
        let venus = try await Self.python(["-c", script, sample])
        try #require(venus.status == 0)
        let theirs = venus.output.split(separator: "\n").map { Self.comparable(String($0)) }
        let feed = try feed()
        // Venus's feed parser gives the title-only item `base` "" (no address): so does ours, given none.
        var context = filterFeed(feed)
        context.url = nil
        let ours = feed.entries.map { Self.comparable(NormalizedEntry.document($0, in: context).text) }
        #expect(theirs.count == 3 && theirs.allSatisfy { $0.count >= 3 }, "\(venus.output)")
        #expect(ours == theirs)
    }

    static let venusFilters = SharedCorpora.path("venus/filters")?.path ?? ""

    /// Venus's `categories.xslt` hooks `atom:updated`: it tags an RSS item that has no date of its own.
    @Test(
        .tags(.corpus),
        .enabled(if: FileManager.default.fileExists(atPath: venusFilters), "needs ../shared/corpora/venus"))
    func venusCategoriesExampleTagsAnUndatedRSSItem() throws {
        let path =
            (Self.venusFilters as NSString).deletingLastPathComponent + "/examples/filters/categories/categories.xslt"
        let entries = try filtered([try EntryFilter.stylesheet(path: path)])
        #expect(entries.map { $0.categories.map(\.term) } == [["WebSemantique"], [], []])
        #expect(entries[0].updated == nil && entries[0].published == nil, "the fallback date was read back")
    }
}
