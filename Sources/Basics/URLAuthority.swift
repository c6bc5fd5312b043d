/// The host a URL is fetched from, as politeness counts it. The per-host
/// limit of one process and the host leases of a shared state use the same
/// key (`host(of:)`), decided from the URL's text alone, before any DNS:
/// one canonical spelling per host, so that `http://LOCALHOST.:80/`,
/// `http://127.1/` and `http://2130706433/` are one host; two different
/// names for one address stay two hosts (what a name resolves to is not
/// known when a transfer is scheduled, and may change).
public enum URLAuthority {
    /// A URL's scheme, host and port as written (the host lower-cased and
    /// percent-decoded, without user information; brackets kept around
    /// IPv6); nil when the URL names no authority (a local path).
    public struct Parts: Equatable, Sendable {
        public var scheme: String
        public var host: String
        /// The port as written, "" when none is.
        public var port: String
    }

    /// Splits an `scheme://authority/...` URL; nil without `://`.
    public static func parts(of url: String) -> Parts? {
        let bytes = Array(url.utf8)
        guard
            let colon = bytes.indices.first(where: { index in
                index + 2 < bytes.count && bytes[index] == UInt8(ascii: ":") && bytes[index + 1] == UInt8(ascii: "/")
                    && bytes[index + 2] == UInt8(ascii: "/")
            })
        else { return nil }
        let scheme = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
        let ends: Set<UInt8> = [UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "\\")]
        var authority = bytes[(colon + 3)...].prefix { !ends.contains($0) }
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[(at + 1)...] }
        var host = authority
        var port = authority[authority.endIndex...]
        if authority.first == UInt8(ascii: "[") {
            if let close = authority.firstIndex(of: UInt8(ascii: "]")) {
                host = authority[...close]
                port = authority[(close + 1)...]
            }
        } else if let last = authority.lastIndex(of: UInt8(ascii: ":")) {
            host = authority[..<last]
            port = authority[last...]
        }
        if port.first == UInt8(ascii: ":") { port = port.dropFirst() }
        return Parts(
            scheme: scheme, host: percentDecoded(String(decoding: host, as: UTF8.self)).lowercased(),
            port: String(decoding: port, as: UTF8.self))
    }

    /// The canonical key of the host a URL is fetched from; "" for a URL
    /// without an authority (a local file). Lower-cased, percent-decoded,
    /// the final dot of a name dropped, the scheme's default port dropped
    /// (80 for http, 443 for https; any other port kept, as a number), an
    /// address literal in its one form (IPv4 in every spelling libcurl and
    /// `inet_aton` read: `127.1`, `0x7f000001`, `2130706433`, `0177.0.0.1`, as
    /// dotted decimal; IPv6 as `inet_ntop` writes it: compressed,
    /// IPv4-mapped as `::ffff:a.b.c.d`), and `localhost` (which libcurl
    /// resolves itself, without DNS) as `127.0.0.1`. A key longer than any
    /// host name can be (`maximumLength`) is cut and ends with a hash of the
    /// whole, so that every key can be stored and indexed.
    /// The URLs on these hosts (`host(of:)`), by host, in their order: one pass.
    public static func urls(_ urls: some Sequence<String>, onHosts hosts: Set<String>) -> [String: [String]] {
        var found: [String: [String]] = [:]
        for url in urls {
            let host = host(of: url)
            if hosts.contains(host) { found[host, default: []].append(url) }
        }
        return found
    }

    public static func host(of url: String) -> String {
        guard let parts = parts(of: url) else { return "" }
        let host = canonicalHost(parts.host)
        var key = host
        let digits = parts.port.drop { $0 == "0" }
        let defaultPort = ["http": "80", "https": "443"][parts.scheme]
        if !parts.port.isEmpty, parts.port.allSatisfy(\.isASCII), parts.port.allSatisfy(\.isNumber) {
            let number = digits.isEmpty ? "0" : String(digits)
            if number != defaultPort { key += ":" + number }
        } else if !parts.port.isEmpty {
            key += ":" + parts.port
        }
        guard key.utf8.count > maximumLength else { return key }
        let kept = String(decoding: key.utf8.prefix(maximumLength - 17), as: UTF8.self)
        let hash = String(FNV1a.hash(key), radix: 16)
        return kept + "#" + String(repeating: "0", count: 16 - hash.count) + hash
    }

    /// The key of a host as an operator names it (`Feeds.Example.org`,
    /// `127.1:8080`, `[::1]`, `localhost`): the key `host(of:)` gives a URL
    /// on that host and port. A port of 80 or 443 is dropped, as a URL's key
    /// drops its scheme's default port. The text is not checked: it is meant
    /// to be a host with an optional port, nothing else.
    public static func key(ofHost text: String) -> String {
        let key = host(of: "http://" + text + "/")
        return key.hasSuffix(":443") ? String(key.dropLast(4)) : key
    }

    /// A key without its port (`example.org:8080` is `example.org`); the key
    /// itself when it has none.
    public static func withoutPort(_ key: String) -> Substring {
        if key.hasPrefix("[") {
            guard let close = key.firstIndex(of: "]") else { return key[...] }
            return key[...close]
        }
        guard let colon = key.lastIndex(of: ":") else { return key[...] }
        return key[..<colon]
    }

    /// Longer than any DNS name (253 bytes) with a port.
    public static let maximumLength = 270

    /// A lower-cased host in its one spelling (see `host(of:)`).
    public static func canonicalHost(_ host: String) -> String {
        var name = host
        if name.hasSuffix(".") && !name.hasPrefix("[") { name.removeLast() }
        if name == "localhost" { return "127.0.0.1" }
        guard let address = IPAddress.literal(name) else { return name }
        let text = IPAddress.format(address)
        return address.count == 16 ? "[\(text)]" : text
    }

    /// `%XX` escapes decoded (as libcurl decodes a host name); text that is
    /// not a valid escape, or decodes to invalid UTF-8, is left as it is.
    static func percentDecoded(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        var input = Array(text.utf8)[...]
        while let byte = input.popFirst() {
            if byte == UInt8(ascii: "%"), input.count >= 2,
                let value = UInt8(String(decoding: input.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                input = input.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self) ?? text
    }
}
