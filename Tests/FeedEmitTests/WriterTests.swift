import FeedEmit
import FeedModel
import FeedParse
import Foundation
import Testing
import TextOutput

/// Golden files for the three writers, with a fixed clock.
/// `RECORD_SNAPSHOTS=1 swift test --filter WriterTests` rewrites them and fails; review the diff.
@Suite struct WriterTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    static func at(_ seconds: Int64) -> Timestamp { Timestamp(secondsSince1970: seconds) }

    static let metadata = OutputMetadata(
        title: "Planet <Test> & Co", link: "https://planet.example/", selfURL: "https://planet.example/feed.atom",
        id: "tag:planet.example,2024:feed", author: Person(name: "Owner", email: "owner@planet.example"),
        updated: at(1_704_067_200), generator: "feedmerge", generatorVersion: "0.0.0-test",
        generatorURI: "https://github.com/feedmerge/feedmerge")

    static var entries: [MergedEntry] {
        var first = Entry()
        first.id = "https://blog.example/posts/1"
        first.link = "https://blog.example/posts/1"
        first.title = Text("<b>Bold</b> &amp; brave", kind: .html)
        first.summary = Text("<p>Summary with <a href=\"https://blog.example/x\">a link</a></p>", kind: .html)
        first.content = [Text("<p>Full text \u{1}with a control character\u{FFFE}</p>", kind: .html)]
        first.published = at(1_704_000_000)
        first.updated = at(1_704_050_000)
        first.authors = [Person(name: "Ann", email: "ann@blog.example"), Person(name: "Bob")]
        first.categories = [
            Category(term: "swift", scheme: "https://blog.example/tags"), Category(term: "Blogs/Swift"),
        ]
        first.enclosures = [
            Enclosure(url: "https://cdn.example/1.mp3", length: 1234, type: "audio/mpeg"),
            Enclosure(url: "https://cdn.example/1.ogg", length: nil, type: "audio/ogg"),
        ]
        var second = Entry()
        second.title = Text("Plain \"quoted\" title <not markup>")
        second.link = "https://other.example/a?x=1&y=2"
        second.content = [Text("Just text & more")]
        second.published = at(1_703_000_000)
        return [
            MergedEntry(
                entry: first, date: at(1_704_000_000),
                source: FeedSource(
                    title: "Blog", link: "https://blog.example/", feedURL: "https://blog.example/feed.xml",
                    id: "urn:blog", updated: at(1_704_060_000), folder: ["Blogs", "Swift"]),
                alsoIn: ["https://mirror.example/feed.xml"]),
            MergedEntry(
                entry: second, date: at(1_703_000_000),
                source: FeedSource(title: nil, link: nil, feedURL: "https://other.example/rss")),
        ]
    }

    @Test(arguments: OutputFormat.allCases)
    func rendersAsRecorded(_ format: OutputFormat) throws {
        let text = format.render(Self.entries, metadata: Self.metadata)
        let file = Self.golden.appendingPathComponent("planet.\(format.rawValue)")
        if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] != nil {
            try Data(text.utf8).write(to: file)
            // A recording run never passes: the new file is reviewed, then the test run again without it.
            Issue.record("recorded \(file.lastPathComponent); review the diff, then run without RECORD_SNAPSHOTS")
            return
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        #expect(text == expected, "\(format) output differs from \(file.lastPathComponent)")
    }

    @Test(arguments: OutputFormat.allCases)
    func readsBackWithTheSameEntries(_ format: OutputFormat) throws {
        let text = format.render(Self.entries, metadata: Self.metadata)
        #expect(
            !text.unicodeScalars.contains { $0 == "\u{1}" || $0 == "\u{FFFE}" }, "a forbidden character was written")
        let parsed = try FeedParser.parse(Array(text.utf8))
        #expect(parsed.warnings.filter { $0.contains("not well-formed") }.isEmpty)
        #expect(parsed.entries.count == 2)
        #expect(parsed.entries.map(\.link) == Self.entries.map(\.entry.link))
        #expect(parsed.entries.map { $0.published ?? $0.updated } == Self.entries.map(\.date))
        #expect(parsed.entries[1].title?.value == "Plain \"quoted\" title <not markup>")
        #expect(parsed.entries[0].id == "https://blog.example/posts/1")
        #expect(parsed.entries[1].id?.isEmpty == false)
    }

    /// HTML goes out in CDATA sections; what a section cannot hold as it
    /// is (`]]>`, a carriage return) must still read back exactly.
    @Test(arguments: [OutputFormat.atom, .rss])
    func markupReadsBackExactlyFromCDATASections(_ format: OutputFormat) throws {
        var entry = Entry()
        entry.link = "https://blog.example/cdata"
        entry.summary = Text("<p>sum]]>mary</p>", kind: .html)
        entry.content = [Text("<p>a]]>b\r\nc]]]>d]]e]\u{1}</p><![CDATA[x]]>", kind: .html)]
        let item = MergedEntry(
            entry: entry, date: Self.at(1_704_000_000), source: FeedSource(feedURL: "https://blog.example/feed"))
        let text = format.render([item], metadata: Self.metadata)
        #expect(text.contains("<![CDATA["))
        let parsed = try FeedParser.parse(Array(text.utf8))
        #expect(parsed.warnings.filter { $0.contains("not well-formed") }.isEmpty)
        #expect(parsed.entries.first?.content.first?.value == "<p>a]]>b\r\nc]]]>d]]e]</p><![CDATA[x]]>")
        #expect(parsed.entries.first?.summary?.value == "<p>sum]]>mary</p>")
    }

    @Test func rssHasOneEnclosurePerItemAndAuthorsOnlyWithAddresses() {
        let rss = OutputFormat.rss.render(Self.entries, metadata: Self.metadata)
        #expect(rss.components(separatedBy: "<enclosure ").count == 2)
        #expect(rss.contains("<author>ann@blog.example (Ann)</author>"))
        #expect(rss.contains("<dc:creator>Bob</dc:creator>"))
        #expect(rss.contains("<guid isPermaLink=\"true\">https://blog.example/posts/1</guid>"))
        #expect(rss.contains("<source url=\"https://blog.example/feed.xml\">Blog</source>"))
    }
}

/// Outputs are streamed to their files a piece at a time; the pieces must
/// join into exactly the document rendered whole.
@Suite struct StreamingTests {
    /// Many entries, so a small threshold drains many times mid-document.
    static var entries: [MergedEntry] { Array(repeating: WriterTests.entries, count: 50).flatMap { $0 } }

    @Test(arguments: OutputFormat.allCases)
    func drainedPiecesJoinIntoTheWholeDocument(_ format: OutputFormat) {
        let whole = format.renderBytes(Self.entries, metadata: WriterTests.metadata)
        var pieces: [[UInt8]] = []
        var buffer = TextBuffer(drainingAt: 700) { pieces.append(Array($0)) }
        format.render(Self.entries, metadata: WriterTests.metadata, into: &buffer)
        buffer.flush()
        #expect(pieces.count > 20)
        #expect(pieces.flatMap { $0 } == whole)
    }

    @Test func streamedFileReplacesTheOldOneWhole() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(getpid())-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("out.atom").path
        try AtomicFile.write("old", to: path)
        let many = Array(repeating: Self.entries, count: 40).flatMap { $0 }  // several megabytes
        try AtomicFile.write(to: path) { OutputFormat.atom.render(many, metadata: WriterTests.metadata, into: &$0) }
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(written.count > 1 << 20)
        #expect(written == OutputFormat.atom.renderBytes(many, metadata: WriterTests.metadata))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out.atom"])
    }

    @Test func aFolderThatCannotBeWrittenLeavesAClearError() {
        #expect(throws: AtomicFile.WriteError.self) {
            try AtomicFile.write(to: "/nonexistent-folder/out.atom") { $0.append("x") }
        }
    }
}
