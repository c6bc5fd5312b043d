/// The form of a link used to spot the same entry in two feeds: scheme and
/// host lower-cased, the default port, the fragment and `utm_*` parameters
/// dropped, a trailing slash removed.
enum LinkNormalizer {
    static func normalize(_ link: String) -> String {
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
