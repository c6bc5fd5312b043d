import HTMLSanitizer
import Testing

/// What the allowlist keeps and how it writes it.
@Suite struct PolicyTests {
    @Test func ordinaryContentSurvives() {
        let html = "<p>Hello <b>bold</b> <em>em</em> <code>x</code></p><ul><li>one</li></ul><blockquote>q</blockquote>"
        #expect(HTMLSanitizer.sanitize(html) == html)
    }

    @Test func tablesKeepTheirStructure() {
        let html = "<table><caption>c</caption><thead><tr><th scope=\"col\">h</th></tr></thead>"
            + "<tbody><tr><td colspan=\"2\">d</td></tr></tbody></table>"
        #expect(HTMLSanitizer.sanitize(html) == html)
    }

    @Test func linksGetRelAndImagesLazyLoadingOnThePage() {
        let page = HTMLSanitizer.sanitizeToXHTML("<a href=\"http://a.test/\" target=\"_blank\" rel=\"opener\">x</a><img src=\"http://a.test/i.png\" alt=\"i\">")
        #expect(page == "<a href=\"http://a.test/\" rel=\"nofollow noopener noreferrer\">x</a><img src=\"http://a.test/i.png\" alt=\"i\" loading=\"lazy\"/>")
    }

    /// Deliberately not in `sanitize` (feed outputs, `parse --sanitize`): the
    /// page decorations belong to the page; feed readers apply their own, and
    /// feedparser's checks (the `on*` set: `<img src=…>` exactly) expect none.
    @Test func feedOutputsGetNoPageDecorations() {
        #expect(HTMLSanitizer.sanitize("<a href=\"http://a.test/\" target=\"_blank\">x</a>") == "<a href=\"http://a.test/\">x</a>")
        #expect(HTMLSanitizer.sanitize("<img src=\"http://a.test/i.png\">") == "<img src=\"http://a.test/i.png\">")
    }

    @Test func relativeURLsResolveAgainstTheBase() {
        let out = HTMLSanitizer.sanitize("<a href=\"../x?y#z\">x</a><img src=\"i.png\" srcset=\"a.png 1x, /b.png 2x\">", base: "http://a.test/blog/post/")
        #expect(out == "<a href=\"http://a.test/blog/x?y#z\">x</a><img src=\"http://a.test/blog/post/i.png\" srcset=\"http://a.test/blog/post/a.png 1x, http://a.test/b.png 2x\">")
    }

    @Test func relativeURLsStayRelativeWithoutABase() {
        #expect(HTMLSanitizer.sanitize("<a href=\"/x\">x</a>") == "<a href=\"/x\">x</a>")
    }

    @Test func schemesAreNormalisedTheWayBrowsersDo() {
        #expect(HTMLSanitizer.sanitize("<a href=\" \tHTTPS://a.test/\n\">x</a>") == "<a href=\"https://a.test/\">x</a>")
        #expect(HTMLSanitizer.sanitize("<a href=\"MAILTO:a@b.test\">x</a>") == "<a href=\"mailto:a@b.test\">x</a>")
        #expect(HTMLSanitizer.sanitize("<a href=\"java&#x09;script:alert(1)\">x</a>") == "<a>x</a>")
    }

    @Test func imageDataURLsOnlyOnImages() {
        let data = "data:image/png;base64,iVBORw0KGgo="
        #expect(HTMLSanitizer.sanitize("<img src=\"\(data)\">") == "<img src=\"\(data)\">")
        #expect(HTMLSanitizer.sanitize("<a href=\"\(data)\">x</a>") == "<a>x</a>")
        #expect(HTMLSanitizer.sanitize("<img src=\"data:image/svg+xml;base64,PHN2Zz4=\">") == "<img>")
        #expect(HTMLSanitizer.sanitize("<img src=\"data:image/png,notbase64\">") == "<img>")
    }

    @Test func aBadSrcsetCandidateIsDroppedAlone() {
        #expect(HTMLSanitizer.sanitize("<img srcset=\"http://a.test/1.png 1x, javascript:x 2x, http://a.test/3.png 3x\">")
            == "<img srcset=\"http://a.test/1.png 1x, http://a.test/3.png 3x\">")
        #expect(HTMLSanitizer.sanitize("<img srcset=\"javascript:x 1x\">") == "<img>")
    }

    @Test func textIsEscaped() {
        #expect(HTMLSanitizer.sanitize("a &lt; b &amp; c &gt; d\u{A0}e") == "a &lt; b &amp; c &gt; d&nbsp;e")
        #expect(HTMLSanitizer.sanitize("<span title='a\"b&c<d'>x</span>") == "<span title=\"a&quot;b&amp;c&lt;d\">x</span>")
    }

    @Test func preKeepsItsLeadingNewline() {
        #expect(HTMLSanitizer.sanitize("<pre>\n\nx</pre>") == "<pre>\n\nx</pre>")
        #expect(HTMLSanitizer.sanitize("<pre><script></script>\nx</pre>") == "<pre>\n\nx</pre>")
    }

    @Test func droppedElementsTakeTheirContentAndUnknownOnesKeepIt() {
        #expect(HTMLSanitizer.sanitize("a<script>b</script><style>c</style><iframe>d</iframe>e") == "ae")
        #expect(HTMLSanitizer.sanitize("<custom-tag>kept <b>bold</b></custom-tag>") == "kept <b>bold</b>")
        #expect(HTMLSanitizer.sanitize("x<!-- comment -->y") == "xy")
    }

    @Test func mediaGetControlsAndLoseAutoplay() {
        #expect(HTMLSanitizer.sanitize("<video src=\"http://a.test/v.mp4\" autoplay></video>")
            == "<video src=\"http://a.test/v.mp4\" controls=\"\"></video>")
    }

    @Test func styleKeepsOnlyAllowedDeclarations() {
        #expect(HTMLSanitizer.sanitize("<span style=\"color: red; position: absolute; background: url(x)\">t</span>")
            == "<span style=\"color: red;\">t</span>")
        #expect(HTMLSanitizer.sanitize("<span style=\"color: red; b\\61ckground: x\">t</span>") == "<span>t</span>")
    }

    @Test func classAndIdAreDropped() {
        #expect(HTMLSanitizer.sanitize("<p class=\"c\" id=\"i\" title=\"t\">x</p>") == "<p title=\"t\">x</p>")
    }

    @Test func xhtmlIsWellFormed() {
        let out = HTMLSanitizer.sanitizeToXHTML("<p>a<br>b\u{1}\u{C}\u{FFFF}<hr>&nbsp;&amp;<img src=x.png></p>")
        #expect(out.hasPrefix("<p>a<br/>b"))
        #expect(out.hasSuffix("</p><hr/>\u{A0}&amp;<img src=\"x.png\" loading=\"lazy\"/><p></p>"))
        #expect(!out.unicodeScalars.contains("\u{FFFF}"))
        #expect(!out.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" })
    }

    @Test func depthIsBounded() {
        let input = String(repeating: "<div>", count: 400) + "x"
        let out = HTMLSanitizer.sanitize(input)
        #expect(out.components(separatedBy: "<div>").count - 1 == 256)
        #expect(out.contains("x"))
    }
}
