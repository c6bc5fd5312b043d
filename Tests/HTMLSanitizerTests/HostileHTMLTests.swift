import HTMLOracle
import HTMLSanitizer
import Testing

/// The sanitizer's three properties for every hostile case: no executable
/// construct in the output, sanitizing twice equals sanitizing once, and the
/// output parses back into the tree it serializes.
@Suite struct HostileHTMLTests {
    static func checkProperties(_ input: String, base: String? = nil) {
        #expect(SanitizerProperties.problems(input, base: base) == [], "input: \(input.prefix(300).debugDescription)")
    }

    @Test(arguments: HostileCases.all)
    func hostile(_ input: String) {
        Self.checkProperties(input)
    }

    @Test(arguments: HostileCases.urlCases + HostileCases.eventCases)
    func hostileWithBase(_ input: String) {
        Self.checkProperties(input, base: "http://feed.test/blog/post.html")
    }

    @Test func hostileSetHasAtLeast150Cases() {
        #expect(HostileCases.all.count >= 150)
    }

    @Test func hundredThousandNestedDivs() {
        let input = String(repeating: "<div>", count: 100_000) + "deep text" + String(repeating: "</div>", count: 100_000)
        let clock = ContinuousClock()
        let start = clock.now
        let output = HTMLSanitizer.sanitize(input)
        #expect(clock.now - start < .seconds(20))
        #expect(output.contains("deep text"))
        Self.checkProperties(input)
    }

    @Test func hundredThousandUnclosedNestedElements() {
        let input = String(repeating: "<span><em>", count: 50_000) + "x"
        Self.checkProperties(input)
    }
}

/// The checker itself: on raw hostile markup (not sanitized) it must complain,
/// or the property tests above could not fail.
@Suite struct TreeCheckerTests {
    @Test(arguments: [
        "<img src=x onerror=alert(1)>", "<a href=\"java&#x09;script:alert(1)\">x</a>", "<script>x</script>",
        "<svg><a>x</a></svg>", "<span style=\"background:url(x)\">x</span>", "<img srcset=\"a.png 1x, javascript:x 2x\">",
        "<img src=\"data:image/svg+xml,x\">", "<a href=\" JAVASCRIPT:x\">x</a>", "<!--x-->", "<custom-element>x</custom-element>",
        "<div ONFOO=x>x</div>", "<iframe src=http://a.test/></iframe>",
    ])
    func checkerFlagsRawHostileMarkup(_ input: String) {
        #expect(!ParsedOutput(parsing: input).violations.isEmpty)
    }

    @Test func referenceSerializerSeesAReparsedDifference() {
        // Nested links do not survive a re-parse: the oracle must notice.
        let input = "<a href=\"http://a.test/\">1<table><a href=\"http://b.test/\">2</a></table></a>"
        let parsed = ParsedOutput(parsing: input)
        let serialized = ReferenceSerializer.serialize(parsed.root.children)
        #expect(ParsedOutput(parsing: serialized).dump != parsed.dump)
    }
}
