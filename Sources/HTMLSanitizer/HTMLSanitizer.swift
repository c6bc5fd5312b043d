/// Makes feed HTML safe to show in a page, parsing it as browsers do.
///
/// Each value is parsed by gumbo (the WHATWG HTML parsing algorithm) as
/// `div.innerHTML = value` would parse it, walked with an allowlist
/// (`ElementPolicy`, `AttributePolicy`, `URLPolicy`, `StylePolicy`) and
/// written out by our own serializer. Properties that hold for every input:
/// the output has no executable construct; sanitizing it again returns it
/// unchanged; parsing it again gives the tree that was serialized (the
/// mutation-XSS property). A pass that made a shape the parser could read
/// differently (see `SanitizingWalk.unstable`) is re-parsed and sanitized
/// again until its output no longer changes; if that does not happen within
/// a few rounds, only the text is kept.
public enum HTMLSanitizer {
    /// Sanitized HTML, serialized with the HTML serialization rules (for feed outputs, `parse --sanitize`).
    public static func sanitize(_ html: String, base: String? = nil) -> String {
        run(html, base: base, syntax: .html)
    }

    /// The same tree serialized as well-formed XML (XHTML): void elements as `<br/>`, text and attribute
    /// values escaped for XML, characters not allowed in XML 1.0 dropped, no namespace declarations
    /// (the caller wraps it in `<div xmlns="http://www.w3.org/1999/xhtml">`). For the planet page, so
    /// links also get `rel="nofollow noopener noreferrer"` and images `loading="lazy"`.
    public static func sanitizeToXHTML(_ html: String, base: String? = nil) -> String {
        run(html, base: base, syntax: .xhtml)
    }

    /// An address outside any markup (an entry's link, a feed's site, an
    /// author's page) as a page may link to it: normalised as a browser
    /// reads an `href`, then only `http`, `https` and `mailto`. nil for any
    /// other scheme (`javascript:`, `data:`, `file:`) and for a relative
    /// reference, which the page has no base for.
    public static func webLink(_ url: String) -> String? {
        var bytes = Array(url.utf8).withUnsafeBufferPointer { URLPolicy.normalized($0) }
        guard let colon = URLPolicy.schemeEnd(bytes), URLPolicy.allowed(&bytes, colon: colon, image: false) else {
            return nil
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Re-parsing rounds before falling back to text only.
    static let maximumRounds = 4

    static func run(_ html: String, base: String?, syntax: MarkupWriter.Syntax) -> String {
        var input = html
        let first = input.withUTF8 { pass($0, base: base, syntax: syntax) }
        guard first.unstable else { return first.output }
        // Settle in HTML syntax (what a browser would re-parse); URLs are already resolved.
        var settled = syntax == .html ? first.bytes : input.withUTF8 { pass($0, base: base, syntax: .html).bytes }
        for _ in 0..<maximumRounds {
            let next = settled.withUnsafeBufferPointer { pass($0, base: nil, syntax: .html) }
            if next.bytes == settled {
                return syntax == .html ? next.output : settled.withUnsafeBufferPointer {
                    pass($0, base: nil, syntax: syntax).output
                }
            }
            settled = next.bytes
        }
        return settled.withUnsafeBufferPointer { pass($0, base: nil, syntax: syntax, textOnly: true).output }
    }

    struct PassResult {
        var bytes: [UInt8]
        var unstable: Bool
        var output: String { String(decoding: bytes, as: UTF8.self) }
    }

    /// Parses `bytes` and walks the tree once.
    static func pass(
        _ bytes: UnsafeBufferPointer<UInt8>, base: String?, syntax: MarkupWriter.Syntax, textOnly: Bool = false
    ) -> PassResult {
        if let limited = NestingLimit.apply(bytes) ?? GumboWorkaround.apply(bytes) {
            return limited.withUnsafeBufferPointer { pass($0, base: base, syntax: syntax, textOnly: textOnly) }
        }
        let fragment = GumboFragment(parsing: bytes)
        var walk = SanitizingWalk(
            syntax: syntax, capacity: bytes.count, base: base, decorate: syntax == .xhtml, textOnly: textOnly)
        fragment.withRoot { walk.run($0) }
        return PassResult(bytes: walk.writer.bytes, unstable: walk.unstable)
    }
}
