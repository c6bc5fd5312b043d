import Testing

@testable import FeedParse

/// The scanner that makes URLs inside HTML absolute.
@Suite struct HTMLLinksTests {
    let base = "http://example.org/dir/page"

    /// HTML's srcset grammar: URL, optional descriptors, comma; a URL may
    /// itself contain commas and may end with one.
    @Test(arguments: [
        ("a.png", "http://example.org/dir/a.png"),
        ("a.png 1x,b.png   2x", "http://example.org/dir/a.png 1x, http://example.org/dir/b.png 2x"),
        (
            " /a.png 100w , https://cdn.example/b.png 200w ",
            "http://example.org/a.png 100w, https://cdn.example/b.png 200w"
        ),
        ("a,b.png, c.png", "http://example.org/dir/a,b.png, http://example.org/dir/c.png"),
        ("a.png, b.png 1x, ", "http://example.org/dir/a.png, http://example.org/dir/b.png 1x"),
    ])
    func sourceSets(_ value: String, _ expected: String) {
        #expect(HTMLLinks.resolveSourceSet(value, base: base) == expected)
    }

    @Test func quotesInResolvedValuesAreEscaped() {
        #expect(
            HTMLLinks.absolutize(#"<a href='it"s'>x</a>"#, base: base)
                == #"<a href='http://example.org/dir/it"s'>x</a>"#)
        #expect(HTMLLinks.absolutize(#"<a href=x>y</a>"#, base: base) == #"<a href="http://example.org/dir/x">y</a>"#)
    }

    /// An unquoted value is quoted once resolved: a base holding a space or
    /// `>` cannot end it early and start attributes or elements of its own.
    @Test func unquotedValuesAreQuotedOnceResolved() {
        let result = HTMLLinks.absolutize(
            #"<div xml:base="http://ex.org/my blog/x><img src=q onerror=alert(1)>/"><img src=pic.png alt=x></div>"#,
            base: base)
        #expect(
            result.contains(#"<img src="http://ex.org/my blog/x><img src=q onerror=alert(1)>/pic.png" alt=x>"#),
            "\(result)")
    }

    @Test func xmlBaseScopeEndsWithItsElement() {
        let html =
            #"<div xml:base="/d/"><a href="in">1</a></div><a href="out">2</a><br xml:base="/b/"><a href="after">3</a>"#
        let result = HTMLLinks.absolutize(html, base: base)
        #expect(result.contains(#"href="http://example.org/d/in""#), "\(result)")
        #expect(result.contains(#"href="http://example.org/dir/out""#), "\(result)")
        #expect(result.contains(#"href="http://example.org/dir/after""#), "\(result)")
    }

    @Test func markupWithoutRelativeURLsIsReturnedUnchanged() {
        let html = #"<p class="x">no <b>links</b> <a href="http://a/">a</a></p>"#
        #expect(HTMLLinks.absolutize(html, base: base) == html)
    }
}
