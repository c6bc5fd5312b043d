/// What a fetch gave: a body (status 2xx) or "not modified" (304).
public struct FetchResponse: Sendable {
    /// The HTTP status of the last response; 200 for local files.
    public var status: Int
    /// Where the body came from after redirects.
    public var finalURL: String
    /// Whether any redirect was followed.
    public var redirected: Bool
    /// Whether every redirect followed was permanent (301 or 308): only then
    /// should the subscription's stored URL move to `finalURL`.
    public var permanentlyRedirected: Bool
    public var headers: ResponseHeaders
    /// The decoded body (empty for 304).
    public var body: [UInt8]
    public var timings: Timings

    /// 304 to a conditional request: reuse what was stored. Not an error.
    public var isNotModified: Bool { status == 304 }

    public struct Timings: Sendable {
        /// Seconds from the start of the transfer to its end.
        public var total: Double
    }
}

/// The response headers that matter to a feed reader.
public struct ResponseHeaders: Sendable, Hashable {
    /// With its charset parameter, which the parse stage needs.
    public var contentType: String?
    public var etag: String?
    public var lastModified: String?
    /// Every `Cache-Control` line, joined with commas (RFC 9110, 5.3).
    public var cacheControl: String?
    public var expires: String?
    /// When the server made the response, by its clock.
    public var date: String?
    public var retryAfter: String?
    /// Cloudflare's `cf-mitigated` (`challenge`: the answer is a bot-protection challenge).
    public var cfMitigated: String?
    /// Every `Link` line (RFC 8288), joined with commas: where a WebSub publisher names its hub
    /// and the feed's own address (`WebLink.targets`).
    public var link: String?

    public init() {}

    /// Records one header field; names are case-insensitive (ASCII, as HTTP's are).
    mutating func record(name: String, value: String) {
        guard let field = Field(name: name.utf8) else { return }
        record(field, value: value)
    }

    mutating func record(_ field: Field, value: String) {
        switch field {
        case .contentType: contentType = value
        case .etag: etag = value
        case .lastModified: lastModified = value
        case .cacheControl: cacheControl = cacheControl.map { "\($0), \(value)" } ?? value
        case .expires: expires = value
        case .date: date = value
        case .retryAfter: retryAfter = value
        case .cfMitigated: cfMitigated = value
        case .link: link = link.map { "\($0), \(value)" } ?? value
        }
    }

    /// The fields kept, told by their name's bytes before any string is made
    /// (a response's other fields cost a comparison, not an allocation).
    enum Field: CaseIterable {
        case contentType, etag, lastModified, cacheControl, expires, date, retryAfter, cfMitigated, link

        var name: StaticString {
            switch self {
            case .contentType: "content-type"
            case .etag: "etag"
            case .lastModified: "last-modified"
            case .cacheControl: "cache-control"
            case .expires: "expires"
            case .date: "date"
            case .retryAfter: "retry-after"
            case .cfMitigated: "cf-mitigated"
            case .link: "link"
            }
        }

        /// - Parameter name: the field's name as it came, in any ASCII case.
        init?<Name: Collection<UInt8>>(name: Name) {
            for field in Self.allCases {
                let known = field.name
                guard known.utf8CodeUnitCount == name.count else { continue }
                let matches = known.withUTF8Buffer { known in
                    zip(known, name).allSatisfy { expected, byte in
                        expected == (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
                    }
                }
                if matches {
                    self = field
                    return
                }
            }
            return nil
        }
    }
}

extension ResponseHeaders {
    /// How many seconds a private cache may reuse the response without
    /// asking again (RFC 9111, 4.2.1): `max-age`, else `Expires` minus
    /// `Date`, both by the server's clock, so our clock's skew does not
    /// count (the time of arrival, `receivedAt`, stands in for a missing
    /// `Date`). Nil when nothing is said or the response must be
    /// revalidated (`no-cache`) or not stored (`no-store`); 0 for an invalid
    /// `Expires` or `max-age`, which mean "already expired" (5.3, 4.2.1).
    /// `s-maxage` is for shared caches and ignored.
    public func freshnessLifetime(receivedAt: Int64) -> Int? {
        let directives = CacheDirective.parse(cacheControl ?? "")
        if directives.contains(where: { $0.name == "no-store" || $0.name == "no-cache" && $0.argument == nil }) {
            return nil
        }
        let maxAges = directives.filter { $0.name == "max-age" }
        if let first = maxAges.first {
            guard maxAges.allSatisfy({ $0.argument == first.argument }), let text = first.argument, !text.isEmpty,
                text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            else { return 0 }
            return Int(text).map { min($0, Int(Int32.max)) } ?? Int(Int32.max)
        }
        guard let expires else { return nil }
        guard let expiry = HTTPDate.parse(expires) else { return 0 }
        let served = date.flatMap(HTTPDate.parse) ?? receivedAt
        return Int(max(0, min(expiry - served, Int64(Int32.max))))
    }
}

/// One directive of a `Cache-Control` list (RFC 9111, 5.2): a
/// case-insensitive name and an optional token or quoted-string argument.
struct CacheDirective: Equatable {
    var name: String
    /// Unquoted, backslash escapes removed.
    var argument: String?

    /// Reads a comma-separated list; commas inside a quoted argument do not
    /// split it, and empty members (`a,,b`) are skipped.
    static func parse(_ field: String) -> [CacheDirective] {
        var directives: [CacheDirective] = []
        let bytes = Array(field.utf8)
        var i = 0
        func skipSpace() { while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 { i += 1 } }
        func token() -> String {
            let start = i
            while i < bytes.count, ![0x20, 0x09, UInt8(ascii: ","), UInt8(ascii: "=")].contains(bytes[i]) { i += 1 }
            return String(decoding: bytes[start..<i], as: UTF8.self)
        }
        while i < bytes.count {
            skipSpace()
            let name = token().lowercased()
            skipSpace()
            var argument: String?
            if i < bytes.count, bytes[i] == UInt8(ascii: "=") {
                i += 1
                skipSpace()
                if i < bytes.count, bytes[i] == UInt8(ascii: "\"") {
                    var value: [UInt8] = []
                    i += 1
                    while i < bytes.count, bytes[i] != UInt8(ascii: "\"") {
                        if bytes[i] == UInt8(ascii: "\\"), i + 1 < bytes.count { i += 1 }
                        value.append(bytes[i])
                        i += 1
                    }
                    i += 1
                    argument = String(decoding: value, as: UTF8.self)
                } else {
                    argument = token()
                }
            }
            if !name.isEmpty { directives.append(CacheDirective(name: name, argument: argument)) }
            // Whatever follows up to the next comma is not part of a well-formed member.
            while i < bytes.count, bytes[i] != UInt8(ascii: ",") { i += 1 }
            i += 1
        }
        return directives
    }
}
