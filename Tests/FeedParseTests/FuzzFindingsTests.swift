@testable import FeedParse
import Testing

/// What `scripts/fuzz` found in the parse and link targets, each input as
/// the fuzzer minimized it (or the smallest document that shows the same).
@Suite struct FuzzFindingsTests {
    /// fuzz-parse, under AddressSanitizer: a record that unclosed tags had
    /// nested in another is lifted out, and the outer record, left
    /// unfinished by the cut, is dropped and freed, with the namespace
    /// declarations the lifted one still pointed to (a use after free).
    @Test func aLiftedRecordKeepsTheNamespacesOfTheRecordItLeft() throws {
        let cut = """
            <rss version="2.0"><channel><title>c</title><item xmlns:dc="http://purl.org/dc/elements/1.1/">\
            <title>one<b><item><dc:creator>Bob</dc:creator><title>two</title></item>
            """
        let feed = try FeedParser.parse(Array(cut.utf8))
        #expect(feed.entries.map(\.title?.value) == ["two"])
        #expect(feed.entries.first?.authors.map(\.name) == ["Bob"])
        #expect(feed.warnings.contains { $0.contains("moved out") })
    }

    @Test func theMinimizedInputParses() throws {
        let feed = try FeedParser.parse(Array(#"<feed><entry xmlns="1"><item"#.utf8))
        #expect(feed.entries.isEmpty)
        #expect(feed.warnings.contains { $0.contains("unfinished one was dropped") })
    }

    /// fuzz-links: a base whose path ended in white space before its
    /// fragment gave a result ending in white space, which resolved again
    /// (as an absolute reference, trimmed) changed.
    @Test(arguments: [
        ("", "http://a.example/b #xmailto:/b?utm_source=x7&=2", "http://a.example/b"),
        ("r", "UnsafeBufhttp://f/q\r", "UnsafeBufhttp://f/r"),
        ("x", "  http://a.example/dir/ \n", "http://a.example/dir/x"),
    ])
    func resolvingAgainChangesNothing(reference: String, base: String, expected: String) {
        let resolved = URLReference.resolve(reference, against: base)
        #expect(resolved == expected)
        #expect(URLReference.resolve(resolved, against: base) == resolved)
    }

    /// fuzz-links: a combining mark after a delimiter makes one Character of
    /// the two, so Character search missed the `://` the normalizer had
    /// written before a host that began with a mark, and wrote another each
    /// time. The delimiters are found among scalars now.
    @Test(arguments: [
        "\u{06DA}hthtt#p://f#eed\u{0E}examd.example/blog/", "http://a.example/?\u{301}utm_source=x",
        "http://a.example/p#\u{301}frag", "\u{301}://a.example/", "http:/\u{301}/a.example/",
    ])
    func normalizingTwiceIsNormalizingOnceWithCombiningMarks(_ link: String) {
        let once = LinkNormalizer.normalize(link)
        #expect(LinkNormalizer.normalize(once) == once, "\(link.debugDescription) → \(once.debugDescription)")
    }

    @Test func aSchemelessLinkStartingWithAMarkGetsOneSeparator() {
        #expect(LinkNormalizer.normalize("\u{06DA}x#y").unicodeScalars.filter { $0 == ":" }.count == 1)
    }
}
