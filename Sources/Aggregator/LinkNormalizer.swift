/// The form of a link used to spot the same entry in two feeds: scheme and
/// host lower-cased, the default port, the fragment and `utm_*` parameters
/// dropped, a trailing slash removed.
enum LinkNormalizer {
    static func normalize(_ link: String) -> String {
        if let simple = alreadyNormal(link) { return simple }
        return normalizeFully(link)
    }

    /// Most links need nothing but the scheme folded: lower-case host, no
    /// port, query, fragment or trailing slash. One pass over the bytes.
    private static func alreadyNormal(_ link: String) -> String? {
        let utf8 = link.utf8
        var slashes = 0
        var inHost = false
        var last: UInt8 = 0
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "?"), UInt8(ascii: "#"), 0x20, 0x09, 0x0A, 0x0D: return nil
            case UInt8(ascii: "/"):
                slashes += 1
                inHost = slashes == 2
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: ":"):
                if inHost || slashes == 0 && byte != UInt8(ascii: ":") { return nil }
            default:
                break
            }
            last = byte
        }
        guard slashes >= 2, last != UInt8(ascii: "/") else { return nil }
        if link.hasPrefix("https://") { return "http://" + link.dropFirst(8) }
        return link.hasPrefix("http://") ? link : nil
    }

    private static func normalizeFully(_ link: String) -> String {
        var text = Substring(link.trimmingCharacters(in: " \t\r\n"))
        if let hash = text.firstIndex(of: "#") { text = text[..<hash] }
        var query: Substring? = nil
        if let mark = text.firstIndex(of: "?") {
            query = text[text.index(after: mark)...]
            text = text[..<mark]
        }
        var scheme = ""
        if let range = text.firstRange(of: "://") {
            scheme = text[..<range.lowerBound].lowercased()
            text = text[range.upperBound...]
        }
        let slash = text.firstIndex(of: "/") ?? text.endIndex
        var host = text[..<slash].lowercased()
        var path = String(text[slash...])
        if (scheme == "http" && host.hasSuffix(":80")) || (scheme == "https" && host.hasSuffix(":443")) {
            host = String(host[..<host.lastIndex(of: ":")!])
        }
        while path.hasSuffix("/") { path.removeLast() }
        let kept = query?.split(separator: "&").filter { !$0.lowercased().hasPrefix("utm_") && !$0.isEmpty } ?? []
        let rest = kept.isEmpty ? "" : "?" + kept.joined(separator: "&")
        // http and https name the same entry.
        let canonicalScheme = scheme == "https" ? "http" : scheme
        return canonicalScheme + "://" + host + path + rest
    }
}

extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
