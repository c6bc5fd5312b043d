import Basics
/// A URI reference split into its RFC 3986 components, and reference
/// resolution (RFC 3986, section 5.2) without Foundation.
public struct URLReference: Equatable {
    var scheme: Substring?
    var authority: Substring?
    var path: Substring
    var query: Substring?
    var fragment: Substring?

    /// Splits by the regular expression of RFC 3986, appendix B.
    init(_ text: Substring) {
        var rest = text
        if let hash = rest.firstIndex(of: "#") {
            fragment = rest[rest.index(after: hash)...]
            rest = rest[..<hash]
        }
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        if let colon = rest.firstIndex(of: ":"), colon != rest.startIndex,
            rest[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }),
            rest.first!.isLetter
        {
            scheme = rest[..<colon]
            rest = rest[rest.index(after: colon)...]
        }
        if rest.hasPrefix("//") {
            let afterSlashes = rest.index(rest.startIndex, offsetBy: 2)
            let end = rest[afterSlashes...].firstIndex(of: "/") ?? rest.endIndex
            authority = rest[afterSlashes..<end]
            rest = rest[end...]
        }
        path = rest
    }

    var text: String {
        var out = ""
        if let scheme { out += scheme + ":" }
        if let authority { out += "//" + authority }
        out += path
        if let query { out += "?" + query }
        if let fragment { out += "#" + fragment }
        return out
    }

    /// An absolute URL whose path is opaque (`javascript:x`, `mailto:a@b`,
    /// `urn:x:y`): no authority and a path not starting with "/". It cannot be
    /// a base (URL Standard: parsing a relative URL against it fails), so a
    /// reference is left as it is rather than glued onto its scheme.
    var isOpaque: Bool { scheme != nil && authority == nil && !path.hasPrefix("/") }

    /// Whether `text` is an absolute URL with an opaque path: no base.
    static func isOpaque(_ text: String) -> Bool { URLReference(Substring(text)).isOpaque }

    /// Whether a string starts with a scheme (`http:`, `mailto:`): already absolute.
    static func hasScheme(_ text: String) -> Bool { hasScheme(utf8: text.utf8) }

    /// The same over UTF-8 bytes (an attribute value inside HTML, say).
    static func hasScheme(utf8 text: some Sequence<UInt8>) -> Bool {
        var sawLetter = false
        for c in text {
            switch c {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): sawLetter = true
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                if !sawLetter { return false }
            case UInt8(ascii: ":"): return sawLetter
            default: return false
            }
        }
        return false
    }

    /// `reference` resolved against `base`; returned unchanged when it is
    /// already absolute or there is no absolute base.
    public static func resolve(_ reference: String, against base: String?) -> String {
        let trimmed = reference.trimmingWhitespace
        guard let base, !hasScheme(trimmed) else { return trimmed }
        // Trimmed as the reference is: the base's white space would end the result, and the
        // result resolved again would then differ (the fuzzer's find).
        let b = URLReference(Substring(base.trimmingWhitespace))
        guard b.scheme != nil, !b.isOpaque else { return trimmed }
        let r = URLReference(Substring(trimmed))
        var t = URLReference(Substring(""))
        if r.authority != nil {
            t.authority = r.authority
            t.path = Substring(removeDotSegments(r.path))
            t.query = r.query
        } else {
            if r.path.isEmpty {
                t.path = b.path
                t.query = r.query ?? b.query
            } else {
                if r.path.hasPrefix("/") {
                    t.path = Substring(removeDotSegments(r.path))
                } else {
                    t.path = Substring(removeDotSegments(Substring(merge(base: b, path: r.path))))
                }
                t.query = r.query
            }
            t.authority = b.authority
        }
        t.scheme = b.scheme
        t.fragment = r.fragment
        // The base's path may end in white space its fragment followed ("/b #x" gives "/b "): trimmed
        // as an absolute reference is, so resolving the result again changes nothing.
        return t.text.trimmingWhitespace
    }

    private static func merge(base: URLReference, path: Substring) -> String {
        if base.authority != nil && base.path.isEmpty { return "/" + String(path) }
        guard let slash = base.path.lastIndex(of: "/") else { return String(path) }
        return String(base.path[...slash]) + String(path)
    }

    /// RFC 3986, section 5.2.4.
    static func removeDotSegments(_ path: Substring) -> String {
        guard path.contains(Character(".")) else { return String(path) }
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        let absolute = path.hasPrefix("/")
        for (index, segment) in segments.enumerated() {
            if index == 0 && absolute { continue }
            let isLast = index == segments.count - 1
            switch segment {
            case ".":
                if isLast { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if isLast { output.append("") }
            default:
                output.append(segment)
            }
        }
        return (absolute ? "/" : "") + output.joined(separator: "/")
    }
}

