import HTMLSanitizer

/// The properties the sanitizer must hold, checked from the outside
/// (gumbo re-parsing the output as a browser would): no executable construct
/// in the output, sanitizing twice equals sanitizing once, and the output is
/// exactly the serialization of the tree a browser reads from it. Shared by
/// the hostile-case tests and the sanitizer's fuzz target.
public enum SanitizerProperties {
    /// - Returns: one line per property the sanitizer breaks on `input`; empty when it holds them all.
    public static func problems(_ input: String, base: String? = nil) -> [String] {
        var problems: [String] = []
        let output = HTMLSanitizer.sanitize(input, base: base)
        let parsed = ParsedOutput(parsing: output)
        for violation in parsed.violations { problems.append("\(violation) in \(output.prefix(400).debugDescription)") }
        if HTMLSanitizer.sanitize(output, base: base) != output {
            problems.append("not idempotent: \(output.prefix(400).debugDescription)")
        }
        let reference = ReferenceSerializer.serialize(parsed.root.children)
        if reference != output {
            problems.append("re-parses differently: \(output.prefix(400).debugDescription)")
        }
        if ParsedOutput(parsing: reference).dump != parsed.dump {
            problems.append("the browser's tree serializes to another tree: \(reference.prefix(400).debugDescription)")
        }
        // The XHTML form holds the same allowed content (checked as HTML: no `/>` on non-void elements).
        let xhtml = HTMLSanitizer.sanitizeToXHTML(input, base: base)
        for violation in ParsedOutput(parsing: xhtml).violations {
            problems.append("XHTML output: \(violation) in \(xhtml.prefix(400).debugDescription)")
        }
        return problems
    }
}
