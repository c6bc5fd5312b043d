/// The URL rule of Venus's `coral_cdn_filter.py`: an `http` URL's host
/// (with its port, `example.com:1234` → `example.com.1234`) gets
/// `.nyud.net:8080` after it; the rest is put back together as Python 2's
/// `urlparse.urlunparse` puts it (the scheme in lower case; an empty `?`,
/// `#` or `;` dropped).
enum CoralCDN {
    enum Address: Equatable {
        case rewritten(String)
        /// Not an `http` URL.
        case unchanged
        /// A host with one square bracket: `urlparse` raises on it.
        case refused
    }

    static func address(_ url: String) -> Address {
        guard let colon = url.firstIndex(of: ":"), colon > url.startIndex else { return .unchanged }
        let scheme = url[..<colon]
        var rest = url[url.index(after: colon)...]
        // urlsplit's general case: a scheme only if what follows is not a port number.
        if scheme != "http" {
            guard scheme.lowercased() == "http", !rest.isEmpty, !rest.allSatisfy(\.isASCIIDigit) else {
                return .unchanged
            }
        }
        var host = Substring()
        if rest.hasPrefix("//") {
            let after = rest.dropFirst(2)
            let end = after.firstIndex { "/?#".contains($0) } ?? after.endIndex
            host = after[..<end]
            rest = after[end...]
        }
        if host.contains("[") != host.contains("]") { return .refused }
        var fragment = Substring()
        if let hash = rest.firstIndex(of: "#") {
            fragment = rest[rest.index(after: hash)...]
            rest = rest[..<hash]
        }
        var query = Substring()
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        // urlparse's parameters: after the first ';' of the last segment.
        var parameters = Substring()
        let segment = rest.lastIndex(of: "/") ?? rest.startIndex
        if let semicolon = rest[segment...].firstIndex(of: ";") {
            parameters = rest[rest.index(after: semicolon)...]
            rest = rest[..<semicolon]
        }
        var path = String(rest)
        if !parameters.isEmpty { path += ";" + parameters }
        if !path.isEmpty && !path.hasPrefix("/") { path = "/" + path }
        var address = "http://" + portAsLabel(host) + ".nyud.net:8080" + path
        if !query.isEmpty { address += "?" + query }
        if !fragment.isEmpty { address += "#" + fragment }
        return .rewritten(address)
    }

    /// `re.sub(r':(\d+)$', r'.\1', host)`.
    private static func portAsLabel(_ host: Substring) -> String {
        let digits = host.reversed().prefix(while: \.isASCIIDigit).count
        guard digits > 0 else { return String(host) }
        let port = host.index(host.endIndex, offsetBy: -digits)
        guard port > host.startIndex, host[host.index(before: port)] == ":" else { return String(host) }
        return host[..<host.index(before: port)] + "." + host[port...]
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
