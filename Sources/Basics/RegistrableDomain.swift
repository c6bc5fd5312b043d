internal import CPSL

/// The registrable domain of a host: its public suffix and one label more
/// ("eTLD+1"), by the Public Suffix List as libpsl reads it.
/// `blog.example.co.uk` → `example.co.uk`; `alice.github.io` →
/// `alice.github.io` (`github.io` is a public suffix, so each user's site is
/// its own). What a feed's site is, when the timeline asks which entries a
/// feed may speak for.
public enum RegistrableDomain {
    /// - Parameter host: a host name (any case, a final dot allowed) or an IP literal.
    /// - Returns: the host's registrable domain, lower-cased; the whole host when it is an IP
    ///   literal or has none (`localhost`, a public suffix itself); nil for an empty host.
    public static func of(host: String) -> String? {
        var host = host.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        guard !host.isEmpty else { return nil }
        if host.hasPrefix("[") || endsInANumber(host) { return host }
        return PublicSuffixList.shared.registrableDomain(of: host) ?? host
    }

    /// The registrable domain of the host a URI names (`host(ofURI:)`); nil
    /// for a URI that names no host.
    public static func of(uri: String) -> String? {
        host(ofURI: uri).flatMap { of(host: $0) }
    }

    /// The host a URI names, lower-cased, without a final dot: a
    /// `scheme://` URL's host (user information and port left out; an IPv6
    /// literal with its brackets), or a `tag:` URI's authority (RFC 4151: a
    /// domain, or an email address, whose domain counts). nil for a URI that
    /// names no host (`urn:uuid:…`, `mailto:`, a local path).
    public static func host(ofURI uri: String) -> String? {
        let bytes = uri.utf8
        var authority: Substring.UTF8View
        if bytes.starts(with: "tag:".utf8) {
            authority = Substring(uri).utf8.dropFirst(4).prefix { $0 != UInt8(ascii: ",") }
        } else {
            // The authority follows the first "://".
            var rest = Substring(uri).utf8
            while !rest.starts(with: "://".utf8) {
                guard !rest.isEmpty else { return nil }
                rest = rest.dropFirst()
            }
            authority = rest.dropFirst(3).prefix { byte in
                byte != UInt8(ascii: "/") && byte != UInt8(ascii: "?") && byte != UInt8(ascii: "#")
                    && byte != UInt8(ascii: "\\")
            }
        }
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[authority.index(after: at)...] }
        if authority.first == UInt8(ascii: "[") {
            guard let end = authority.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            authority = authority[...end]
        } else if let port = authority.firstIndex(of: UInt8(ascii: ":")) {
            authority = authority[..<port]
        }
        var host = String(decoding: authority, as: UTF8.self).lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        return host.isEmpty ? nil : host
    }

    /// Whether a host's last label is a number (`127.0.0.1`, `2130706433`,
    /// `0x7f.1`): the URL standard reads such a host as an IPv4 address.
    private static func endsInANumber(_ host: String) -> Bool {
        guard let last = host.split(separator: ".", omittingEmptySubsequences: false).last, !last.isEmpty else {
            return false
        }
        if last.hasPrefix("0x") { return last.dropFirst(2).allSatisfy(\.isHexDigit) }
        return last.allSatisfy { $0.isASCII && $0.isNumber }
    }
}

/// The list libpsl loaded, once per process: the newer of its built-in copy
/// and the system's (Debian's `publicsuffix` package, updated with it).
private final class PublicSuffixList: Sendable {
    static let shared = PublicSuffixList()

    /// Read-only once loaded (libpsl's lookups leave it as it is), so any
    /// thread may ask it.
    private nonisolated(unsafe) let context: OpaquePointer?
    /// Whether `context` was loaded for us (and is ours to free), not libpsl's static built-in list.
    private let owned: Bool

    private init() {
        if let latest = psl_latest(nil) {
            context = latest
            owned = true
        } else {
            context = psl_builtin()
            owned = false
        }
    }

    deinit {
        if owned { psl_free(context) }
    }

    /// `host` lower-cased; nil when it has no registrable domain (a public
    /// suffix itself, a single unknown label) or no list could be loaded.
    /// The corresponding C function is `psl_registrable_domain`.
    func registrableDomain(of host: String) -> String? {
        guard let context else { return nil }
        return host.withCString { name in psl_registrable_domain(context, name).map { String(cString: $0) } }
    }
}
