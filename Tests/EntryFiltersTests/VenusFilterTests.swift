import EntryFilters
import FeedModel
import FeedParse
import Foundation
import TestSupport
import Testing

/// Venus's own filters (`minhead.py`, `notweets.py`, `coral_cdn_filter.py`,
/// `stripAd/*.sed`), each given the same document as the real filter and
/// expected to give what it gives: the real one (Python 2.7, Venus's
/// folder) is the reference where it is present; the exact results read
/// from each filter's code hold without it.
@Suite struct VenusFilterTests {
    static let venus = SharedCorpora.path("venus")?.path ?? ""
    static let python = ExternalProgram("env").flatMap { env in
        (try? env.run(["PYENV_VERSION=2.7.18", "python2.7", "-c", "print 1"]))?.standardOutput == "1\n" ? env : nil
    }
    static let hasVenus = FileManager.default.fileExists(atPath: venus + "/filters") && python != nil

    /// What Venus's filter writes for `input` (its `shell/py.py`: `python FILTER --key value`, the document on stdin).
    func venusFilter(_ name: String, _ input: String, _ options: [String] = []) async throws -> String {
        let run = try await #require(Self.python).run(
            ["PYENV_VERSION=2.7.18", "python2.7", Self.venus + "/filters/" + name] + options, input: input)
        #expect(run.standardError.isEmpty, "\(run.standardError)")
        return run.standardOutput
    }

    /// A document's text without its XML declaration and the whitespace at its ends (minidom writes
    /// none after the declaration, libxml2 a newline).
    func body(_ text: String) -> String {
        var text = text[...]
        if text.hasPrefix("<?xml"), let end = text.range(of: "?>") { text = text[end.upperBound...] }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func result(_ filter: DocumentFilter, _ input: String) -> String? {
        switch filter.apply(to: input) {
        case .text(let text): body(text)
        case .unchanged: body(input)
        case .empty: ""
        default: nil
        }
    }

    static let headings = [
        // Venus's tests/data/filter/minhead.xml
        "<div xmlns=\"http://www.w3.org/1999/xhtml\">\n<h1>title</h1><h3>mid</h3><h5>bottom</h5>\n</div>",
        "<div xmlns=\"http://www.w3.org/1999/xhtml\"><h2 class=\"x\" id=\"a\">two <b>bold</b></h2><h6>six</h6></div>",
        "<div xmlns=\"http://www.w3.org/1999/xhtml\"><h3>three</h3><h4>four</h4></div>",
        "<entry xmlns=\"http://www.w3.org/2005/Atom\"><title type=\"xhtml\"><div xmlns=\"http://www.w3.org/1999/xhtml\">"
            + "<h1>in the title</h1></div></title><content type=\"xhtml\"><div xmlns=\"http://www.w3.org/1999/xhtml\">"
            + "<h2>in the content<h1>nested</h1></h2></div></content></entry>",
    ]

    @Test func minheadDemotesEveryHeadingSoTheHighestIsItsMinimum() throws {
        let filter = try DocumentFilter.headings(min: nil)
        #expect(
            result(filter, Self.headings[0])
                == "<div xmlns=\"http://www.w3.org/1999/xhtml\">\n<h3>title</h3><h5>mid</h5><h7>bottom</h7>\n</div>")
        // A heading moved loses its attributes, as minidom's new element has none.
        #expect(
            result(filter, Self.headings[1])
                == "<div xmlns=\"http://www.w3.org/1999/xhtml\"><h3>two <b>bold</b></h3><h7>six</h7></div>")
        #expect(filter.apply(to: Self.headings[2]) == .unchanged, "h3 is already the highest")
        #expect(result(try .headings(min: "1"), Self.headings[0]) == body(Self.headings[0]))
        #expect(throws: EntryFilterError.self) { try DocumentFilter.headings(min: "three") }
        #expect(filter.apply(to: "<div><h1>unclosed</div>") == .failed("not well-formed XML"))
    }

    @Test(.tags(.corpus), .enabled(if: hasVenus, "needs Python 2.7 (pyenv 2.7.18) and ../shared/corpora/venus"))
    func minheadGivesWhatVenusGives() async throws {
        for input in Self.headings {
            for minimum in [nil, "1", "2", "3", "4"] {
                let options = minimum.map { ["--min", $0] } ?? []
                let venus = body(try await venusFilter("minhead.py", input, options))
                #expect(result(try .headings(min: minimum), input) == venus, "min \(minimum ?? "-"): \(input)")
            }
        }
    }

    static let images = [
        "http://example.com/foo.png", "http://example.com:1234/foo.png", "http://u:p@example.com/foo.png",
        "http://u:p@example.com:1234/foo.png", "HTTP://Example.COM/a.png?", "http://example.com/a;b?c=1#top",
        "http://example.com/dir;x/a.png;", "https://example.com/a.png", "/relative.png", "data:image/png,xyz",
        "http://example.com", "http:80", "http:/no-host.png", "http://example.com:/a.png",
    ]

    func imageDocument(_ sources: [String]) -> String {
        "<entry xmlns=\"http://www.w3.org/2005/Atom\"><content type=\"xhtml\">"
            + "<div xmlns=\"http://www.w3.org/1999/xhtml\">"
            + sources.map { "<img src=\"\($0)\"/>" }.joined() + "<a href=\"http://example.com/\">link</a>"
            + "</div></content></entry>"
    }

    @Test func coralRewritesOnlyHTTPImageSources() throws {
        let output = try #require(result(.coralCDN, imageDocument(Self.images)))
        let expected = [
            "http://example.com.nyud.net:8080/foo.png", "http://example.com.1234.nyud.net:8080/foo.png",
            "http://u:p@example.com.nyud.net:8080/foo.png", "http://u:p@example.com.1234.nyud.net:8080/foo.png",
            "http://Example.COM.nyud.net:8080/a.png", "http://example.com.nyud.net:8080/a;b?c=1#top",
            "http://example.com.nyud.net:8080/dir;x/a.png", "https://example.com/a.png", "/relative.png",
            "data:image/png,xyz", "http://example.com.nyud.net:8080", "http://.nyud.net:8080/80",
            "http://.nyud.net:8080/no-host.png", "http://example.com:.nyud.net:8080/a.png",
        ]
        #expect(output == body(imageDocument(expected)), "links are left alone")
        #expect(DocumentFilter.coralCDN.apply(to: imageDocument(["https://a/"])) == .unchanged)
        #expect(DocumentFilter.coralCDN.apply(to: imageDocument(["http://[::1/a.png"])) != .unchanged)
    }

    @Test(.tags(.corpus), .enabled(if: hasVenus, "needs Python 2.7 (pyenv 2.7.18) and ../shared/corpora/venus"))
    func coralGivesWhatVenusGives() async throws {
        let sample = try String(contentsOfFile: Self.venus + "/tests/data/filter/coral_cdn.xml", encoding: .utf8)
        for input in [sample, imageDocument(Self.images)] {
            #expect(result(.coralCDN, input) == body(try await venusFilter("coral_cdn_filter.py", input)))
        }
    }

    static let tweets = [
        "<entry xmlns=\"http://www.w3.org/2005/Atom\"><id>tag:twitter.com,2007:Status/1</id></entry>",
        "<entry xmlns=\"http://www.w3.org/2005/Atom\"><id>urn:a</id><source><id>tag:twitter.com,2007:x</id></source></entry>",
        "<entry xmlns=\"http://www.w3.org/2005/Atom\"><id>tag:twitter.com:2007</id><title>tag:twitter.com,</title></entry>",
    ]

    @Test func notweetsDropsADocumentWithATwitterID() throws {
        #expect(Self.tweets.map { DocumentFilter.noTweets.apply(to: $0) } == [.empty, .empty, .unchanged])
    }

    @Test(.tags(.corpus), .enabled(if: hasVenus, "needs Python 2.7 (pyenv 2.7.18) and ../shared/corpora/venus"))
    func notweetsGivesWhatVenusGives() async throws {
        for input in Self.tweets {
            #expect(result(.noTweets, input) == body(try await venusFilter("notweets.py", input)))
        }
    }

    @Test func onAFeedsEntriesTheyRunOverEachNormalizedEntry() throws {
        let document = """
            <feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><link href="http://blog.example/"/>
            <entry><id>urn:a</id><title>A</title><updated>2026-12-01T00:00:00Z</updated>
              <content type="html">&lt;h1&gt;Top&lt;/h1&gt;&lt;p&gt;Sponsored by X&lt;/p&gt;&lt;p&gt;&lt;img src="http://img.example/a.png"&gt;&lt;/p&gt;</content></entry>
            <entry><id>tag:twitter.com,2007:Status/1</id><title>tweet</title><updated>2026-12-01T00:00:00Z</updated></entry>
            <entry><id>urn:c</id><title>Plain</title><updated>2026-12-01T00:00:00Z</updated><content>as it was</content></entry>
            </feed>
            """
        var feed = try FeedParser.parse(Array(document.utf8), options: .init(url: nil))
        let plain = feed.entries[2]
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let sed = folder.appendingPathComponent("sponsored.sed").path
        try "s|<p>Sponsored[^<]*</p>||g\n".write(toFile: sed, atomically: true, encoding: .utf8)
        let steps: [EntryFilter] = [
            .document(try .headings(min: nil)), .document(.noTweets), .document(.coralCDN),
            .document(try .sed(path: sed, timeLimit: 10)),
        ]
        EntryFilters(steps, names: ["minhead", "notweets", "coral", "sed"]).apply(to: &feed, feedURL: nil)
        #expect(feed.entries.map(\.id) == ["urn:a", "urn:c"])
        let content = feed.entries[0].content.first?.value ?? ""
        #expect(content.contains("<h3>Top</h3>"), "\(content)")
        #expect(content.contains("http://img.example.nyud.net:8080/a.png"), "\(content)")
        #expect(!content.contains("Sponsored"), "\(content)")
        #expect(feed.entries[1] == plain, "an entry no filter changes stays exactly as parsed")
        #expect(feed.warnings == ["1 of its entries left out by its filters"])
    }

    @Test func aFilterThatFailsLeavesTheEntryAsItWasAndSaysSo() throws {
        let document = """
            <feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>
            <entry><id>urn:a</id><title>A</title><updated>2026-12-01T00:00:00Z</updated><content>x</content></entry>
            </feed>
            """
        var feed = try FeedParser.parse(Array(document.utf8), options: .init(url: nil))
        let before = feed.entries
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let sed = folder.appendingPathComponent("broken.sed").path
        try "s|<entry|<broken|\n".write(toFile: sed, atomically: true, encoding: .utf8)
        EntryFilters([.document(try .sed(path: sed, timeLimit: 10))], names: ["sed"]).apply(to: &feed, feedURL: nil)
        #expect(feed.entries == before)
        #expect(feed.warnings.count == 1)
        #expect(feed.warnings.allSatisfy(EntryFilters.isTrouble), "\(feed.warnings)")
    }
}
