import FeedEmit
import FeedModel
import FeedParse
import Foundation
import Testing
import TextOutput

/// WebSub discovery in the merged feeds (W3C WebSub 4: a `rel="hub"` and a `rel="self"` link;
/// JSON Feed 1.1's `hubs` and `feed_url`), and what tells a run that an output changed.
@Suite struct WebSubLinkTests {
    static let hubs = ["https://hub.example/", "https://other-hub.example/websub?x=1&y=2"]

    static var metadata: OutputMetadata {
        var metadata = WriterTests.metadata
        metadata.hubs = hubs
        return metadata
    }

    @Test func atomNamesEveryHubBesideItself() throws {
        let text = OutputFormat.atom.render(WriterTests.entries, metadata: Self.metadata)
        #expect(text.contains("<link rel=\"self\" href=\"https://planet.example/feed.atom\"/>"))
        #expect(text.contains("<link rel=\"hub\" href=\"https://hub.example/\"/>"))
        #expect(text.contains("<link rel=\"hub\" href=\"https://other-hub.example/websub?x=1&amp;y=2\"/>"))
        _ = try FeedParser.parse(Array(text.utf8))  // still a feed
    }

    @Test func rssNamesThemAsAtomLinks() {
        let text = OutputFormat.rss.render(WriterTests.entries, metadata: Self.metadata)
        #expect(text.contains("<atom:link rel=\"hub\" href=\"https://hub.example/\"/>"))
        #expect(text.contains("<atom:link rel=\"hub\" href=\"https://other-hub.example/websub?x=1&amp;y=2\"/>"))
        #expect(text.contains("rel=\"self\""))
    }

    @Test func jsonFeedListsThemAsHubs() throws {
        let bytes = OutputFormat.json.renderBytes(WriterTests.entries, metadata: Self.metadata)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(object["feed_url"] as? String == "https://planet.example/feed.atom")
        let hubs = try #require(object["hubs"] as? [[String: String]])
        #expect(hubs == Self.hubs.map { ["type": "WebSub", "url": $0] })
    }

    @Test(arguments: OutputFormat.allCases)
    func noHubNoHubLink(_ format: OutputFormat) {
        let text = format.render(WriterTests.entries, metadata: WriterTests.metadata)
        #expect(!text.contains("rel=\"hub\"") && !text.contains("\"hubs\""))
    }

    @Test func aCommitSaysWhetherTheBytesChanged() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("changed-\(getpid())-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("out.atom").path
        let many = Array(repeating: WriterTests.entries, count: 40).flatMap { $0 }  // several megabytes
        func commit(_ body: (inout TextBuffer) -> Void) throws -> Bool { try AtomicFile.reserve(path).commit(body) }
        let render = { (out: inout TextBuffer) in OutputFormat.atom.render(many, metadata: Self.metadata, into: &out) }
        #expect(try commit(render), "no file before")
        #expect(try !commit(render), "the same bytes")
        let longer = { (out: inout TextBuffer) in
            render(&out)
            out.append("\n")
        }
        #expect(try commit(longer), "one byte more")
        #expect(try commit(render), "one byte fewer")
        var other = WriterTests.metadata
        other.title = "Planet <Test> & Cx"  // the same length, one byte different
        #expect(try commit { OutputFormat.atom.render(many, metadata: other, into: &$0) })
        #expect(try commit { _ in }, "empty")
        #expect(try !commit { _ in }, "empty again")
    }
}
