/// The host a URL is fetched from, as politeness counts it: the lower-cased
/// authority of an http(s) URL (host and port, without user information);
/// "" for anything else (a local file). The per-host limit of one process
/// and the host leases of a shared state use the same key.
public enum URLAuthority {
    public static func host(of url: String) -> String {
        let bytes = Array(url.utf8)
        guard
            let colon = bytes.indices.first(where: { index in
                index + 2 < bytes.count && bytes[index] == UInt8(ascii: ":") && bytes[index + 1] == UInt8(ascii: "/")
                    && bytes[index + 2] == UInt8(ascii: "/")
            })
        else { return "" }
        let ends: Set<UInt8> = [UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "\\")]
        var authority = bytes[(colon + 3)...].prefix { !ends.contains($0) }
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[(at + 1)...] }
        return String(decoding: authority, as: UTF8.self).lowercased()
    }
}
