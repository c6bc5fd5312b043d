import HTMLSanitizer
import Testing

/// The three properties of issue 12 for every hostile case: no executable
/// construct in the output, sanitizing twice equals sanitizing once, and the
/// output parses back into the tree it serializes.
@Suite struct HostileHTMLTests {
    static func checkProperties(_ input: String, base: String? = nil) {
        let output = HTMLSanitizer.sanitize(input, base: base)
        let parsed = ParsedOutput(parsing: output)
        #expect(parsed.violations == [], "input: \(input.prefix(200))\noutput: \(output.prefix(400))")
        #expect(HTMLSanitizer.sanitize(output, base: base) == output, "not idempotent for \(input.prefix(200))")
        // The output is exactly the serialization of what a browser parses from it,
        // so the browser's tree is the one the sanitizer approved.
        #expect(ReferenceSerializer.serialize(parsed.root.children) == output, "re-parses differently: \(input.prefix(200))")
        let again = ParsedOutput(parsing: ReferenceSerializer.serialize(parsed.root.children))
        #expect(again.dump == parsed.dump)
        // The XHTML form holds the same allowed content (checked as HTML: no `/>` on non-void elements).
        let xhtml = HTMLSanitizer.sanitizeToXHTML(input, base: base)
        #expect(ParsedOutput(parsing: xhtml).violations == [], "XHTML output: \(xhtml.prefix(400))")
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
