import HTMLOracle
import HTMLSanitizer
import Testing

/// What `scripts/fuzz` found in the sanitizer target.
@Suite struct FuzzFindingsTests {
    /// fuzz-sanitize: `&#1` became a raw U+0001 in the HTML output, which
    /// gumbo reads back as another character: sanitizing again changed the
    /// output, and the output did not re-parse into its own tree. C0
    /// controls but tab and LF (and U+FFFE/U+FFFF) now go in HTML as in XHTML.
    @Test(arguments: [
        "&#1", "a&#13;b", "&#x1F;x&#x0C;", "<a href=\"http://a.example/\" title=\"&#2;t\">t</a>", "&#xFFFE;&#xFFFF;",
        "&#x7F;", "a&#x81;b&#x9D;", "&#xFDD0;&#xFDEF;&#x1FFFE;&#x10FFFF;", "caf\u{E9} \u{1F600} \u{A0}",
    ])
    func controlCharactersFromReferences(_ input: String) {
        #expect(SanitizerProperties.problems(input) == [])
        let output = HTMLSanitizer.sanitize(input)
        let unreadable = output.unicodeScalars.filter {
            $0.value < 0x20 && $0 != "\t" && $0 != "\n" || (0x7F...0x9F).contains($0.value)
                || (0xFDD0...0xFDEF).contains($0.value) || $0.value & 0xFFFE == 0xFFFE
        }
        #expect(unreadable.isEmpty, "\(output.debugDescription)")
    }

    /// fuzz-sanitize, then: a DEL in the entry's base (`http://\u{7F}`) reached a resolved
    /// `href` raw; gumbo reads DEL, C1 controls and noncharacters back as U+FFFD too.
    @Test func aControlCharacterInTheBaseDoesNotReachTheOutput() {
        #expect(SanitizerProperties.problems("<a href=\u{FFFD}>x</a>", base: "http://\u{7F}") == [])
        #expect(HTMLSanitizer.sanitize("caf\u{E9} \u{1F600}") == "caf\u{E9} \u{1F600}")
    }

    @Test func textAroundAControlCharacterIsKept() {
        #expect(HTMLSanitizer.sanitize("a&#1;b") == "ab")
    }

    /// fuzz-sanitize, a finding of the oracle: it took `-moz-binding` anywhere in a style for
    /// the property, so `color: #000-moz-binding000` (an invalid colour a browser ignores, which
    /// binds nothing) failed. The oracle now looks for those three names as properties; as
    /// properties they are still caught.
    @Test func aBindingNameInsideAValueIsNotABinding() {
        #expect(SanitizerProperties.problems(#"<div style="color: #000-moz-binding000">x</div>"#) == [])
        for declaration in ["-moz-binding: x", "color: red; behavior: x", " position :absolute"] {
            #expect(!ParsedOutput(parsing: "<div style=\"\(declaration)\">x</div>").violations.isEmpty, "\(declaration)")
        }
    }

    /// fuzz-sanitize, a finding of the oracle: it split `srcset` at every comma, so `w,s:` (one
    /// relative URL to a browser) looked like a URL with the scheme `s`.
    @Test func aSourceSetIsReadAsABrowserReadsIt() {
        #expect(SanitizerProperties.problems("<img srcset=w,s:>") == [])
        #expect(ParsedOutput.sourceSetURLs("a.png 1x, b,c.png 2x,, d.png (x, y) 3x, e.png,") == ["a.png", "b,c.png", "d.png", "e.png"])
        #expect(!ParsedOutput(parsing: #"<img srcset="a.png 1x, javascript:alert(1) 2x">"#).violations.isEmpty)
    }

    /// fuzz-sanitize, 30-minute run: a tab inside the entry's base (`http:/\t/`) reached a
    /// resolved `src`, which a browser (and the next pass) reads without it.
    @Test func aResolvedURLIsNormalizedAsABrowserReadsIt() {
        #expect(SanitizerProperties.problems("<img src=a>", base: "http:/\t/") == [])
        #expect(SanitizerProperties.problems("<a href=x>y</a>", base: "http://a.example/\nb/") == [])
    }
    /// fuzz-sanitize, the clean-clone CI's smoke run: `java&#x08;script:alert(1)` is a relative URL
    /// (a backspace cannot be in a scheme), so it was kept; the writer then dropped the backspace and
    /// wrote `javascript:alert(1)`. The URL policy now percent-encodes what the writer would drop, as
    /// the URL parser does, so the scheme is judged on what is written.
    @Test func aCharacterTheWriterDropsCannotMakeAScheme() {
        let base = "<\u{FFFD}fnidaoltr><td> <a href=\"\u{0}\u{0}https://www.redd\u{FFFD}\u{455}om/user/\">"
        let attack = #"<a href="java&#x08;script:alert(1)">x</a><a href="  http://ok.example//td></tr></table>"#
        #expect(SanitizerProperties.problems(attack, base: base) == [])
        for reference in ["&#x08;", "&#x7F;", "&#x85;", "&#xFDD0;", "&#x1;&#x1;"] {
            let html = "<a href=\"java\(reference)script:alert(1)\">x</a><img src=\"java\(reference)script:x\">"
            #expect(SanitizerProperties.problems(html) == [], "\(reference)")
            #expect(SanitizerProperties.problems(html, base: "http://a.example/") == [], "\(reference)")
            // Before the scheme, where the URL parser strips only C0 controls and spaces.
            #expect(SanitizerProperties.problems("<a href=\"\(reference)javascript:alert(1)\">x</a>") == [], "\(reference)")
        }
        #expect(HTMLSanitizer.sanitize(#"<a href="java&#x08;script:alert(1)">x</a>"#) == #"<a href="java%08script:alert(1)">x</a>"#)
        #expect(HTMLSanitizer.sanitize(#"<a href="/a&#xFFFF;b">x</a>"#) == #"<a href="/a%EF%BF%BFb">x</a>"#)
        // gumbo reads a C1 control in the HTML as U+FFFD (and `&#x85;` as U+2026); in a base or a link it stays.
        #expect(HTMLSanitizer.sanitize(#"<a href="b">x</a>"#, base: "http://a.example/\u{85}/") == #"<a href="http://a.example/%C2%85/b">x</a>"#)
        #expect(HTMLSanitizer.webLink("java\u{8}script:alert(1)") == nil)
        #expect(HTMLSanitizer.webLink("http://a.example/caf\u{E9}\u{7F}\u{9F}") == "http://a.example/caf\u{E9}%7F%C2%9F")
    }
}
