import Basics
/// The form of a link used to spot the same entry in two feeds: scheme and
/// host lower-cased, the default port and `utm_*` parameters dropped, a
/// trailing slash removed. The fragment stays: it is part of the link's
/// identity (a day page with one `#anchor` per post names several posts).
public enum LinkNormalizer {
    public static func normalize(_ link: String) -> String {
        if let simple = alreadyNormal(link) { return simple }
        return normalizeFully(link)
    }

    /// Most links need nothing but the scheme folded: lower-case host, no
    /// port, query, fragment, whitespace or trailing slash. One pass over
    /// the bytes.
    private static func alreadyNormal(_ link: String) -> String? {
        enum Verdict { case asIs, httpsFolded, needsWork }
        var link = link
        let verdict = link.withUTF8 { bytes -> Verdict in
            // (`starts(with: "http://".utf8)` walks the literal as a String, slowly.)
            func starts(with prefix: StaticString) -> Bool {
                let count = prefix.utf8CodeUnitCount
                return bytes.count >= count && (0..<count).allSatisfy { bytes[$0] == prefix.utf8Start[$0] }
            }
            let folded: Bool
            if starts(with: "http://") {
                folded = false
            } else if starts(with: "https://") {
                folded = true
            } else {
                return .needsWork
            }
            // Tab, newline, carriage return, space, '#' and '?', as bits.
            let needsWork: UInt64 = 1 << 0x09 | 1 << 0x0A | 1 << 0x0D | 1 << 0x20 | 1 << 0x23 | 1 << 0x3F
            var inHost = true
            for byte in bytes[(folded ? 8 : 7)...] {
                if byte < 64 {
                    if needsWork >> byte & 1 != 0 { return .needsWork }
                    if byte == UInt8(ascii: "/") { inHost = false }
                    if inHost && byte == UInt8(ascii: ":") { return .needsWork }  // a port, maybe the default
                } else if inHost && byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") {
                    return .needsWork
                }
            }
            guard bytes.last != UInt8(ascii: "/") else { return .needsWork }
            return folded ? .httpsFolded : .asIs
        }
        switch verdict {
        case .asIs: return link
        // http and https name the same entry.
        case .httpsFolded:
            return link.withUTF8 { bytes in
                String(unsafeUninitializedCapacity: bytes.count - 1) { out in
                    _ = out.initialize(from: "http:/".utf8)
                    _ = out[6...].initialize(from: bytes[7...])
                    return bytes.count - 1
                }
            }
        case .needsWork: return nil
        }
    }

    private static func normalizeFully(_ link: String) -> String {
        // The delimiters are found among Unicode scalars, not Characters: a combining mark after
        // `#`, `?`, `/` or `://` makes one Character of the two, which Character search does not
        // see, so that "://" + a host beginning with a mark was not found again (the fuzzer's find).
        var text = Substring(link.trimmingWhitespace)
        var fragment = ""
        if let hash = text.unicodeScalars.firstIndex(of: "#") {
            let rest = Substring(text.unicodeScalars[text.unicodeScalars.index(after: hash)...]).trimmingWhitespace
            if !rest.isEmpty { fragment = "#" + rest }
            // Trimmed again, so that normalizing a normalized link changes nothing.
            text = Substring(Substring(text.unicodeScalars[..<hash]).trimmingWhitespace)
        }
        var query: Substring? = nil
        if let mark = text.unicodeScalars.firstIndex(of: "?") {
            query = Substring(text.unicodeScalars[text.unicodeScalars.index(after: mark)...])
            text = Substring(text.unicodeScalars[..<mark])
        }
        var scheme = ""
        if let range = schemeSeparator(in: text.unicodeScalars) {
            scheme = Substring(text.unicodeScalars[..<range.lowerBound]).lowercased()
            text = Substring(text.unicodeScalars[range.upperBound...])
        }
        let slash = text.unicodeScalars.firstIndex(of: "/") ?? text.endIndex
        var host = Substring(text.unicodeScalars[..<slash]).lowercased().trimmingWhitespace
        // Either default port, for either scheme: http and https are folded into one (below),
        // so `https://a:80` is written `http://a:80`, whose port is the default. (A loop: a
        // broken host such as `a:443:80` must come out as it would the second time.)
        while (scheme == "http" || scheme == "https") && (host.hasSuffix(":80") || host.hasSuffix(":443")) {
            host = host[..<host.lastIndex(of: ":")!].trimmingWhitespace
        }
        // Trailing slashes go, and whitespace a removed part (an empty query or fragment, a
        // slash) left at the end, so that normalizing a normalized link changes nothing.
        var base = host + Substring(text.unicodeScalars[slash...])
        while let last = base.last, last == "/" || last.isWhitespace { base.removeLast() }
        let kept =
            query?.split(separator: "&").map(\.trimmingWhitespace)
            .filter { !$0.lowercased().hasPrefix("utm_") && !$0.isEmpty } ?? []
        let rest = kept.isEmpty ? "" : "?" + kept.joined(separator: "&")
        // http and https name the same entry.
        let canonicalScheme = scheme == "https" ? "http" : scheme
        return canonicalScheme + "://" + base + rest + fragment
    }

    /// The first `://`, as scalars.
    private static func schemeSeparator(in scalars: Substring.UnicodeScalarView) -> Range<String.Index>? {
        var index = scalars.startIndex
        while let colon = scalars[index...].firstIndex(of: ":") {
            let first = scalars.index(after: colon)
            guard first < scalars.endIndex else { return nil }
            let second = scalars.index(after: first)
            if scalars[first] == "/", second < scalars.endIndex, scalars[second] == "/" {
                return colon..<scalars.index(after: second)
            }
            index = first
        }
        return nil
    }
}

