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
        /// Seconds from the start of the transfer to its end, and to the first byte.
        public var total: Double
        public var firstByte: Double
        /// Time spent waiting for a concurrency slot before the transfer started.
        public var queued: Double
    }
}

/// The response headers that matter to a feed reader.
public struct ResponseHeaders: Sendable, Hashable {
    /// With its charset parameter, which the parse stage needs.
    public var contentType: String?
    public var etag: String?
    public var lastModified: String?
    public var cacheControl: String?
    public var expires: String?
    public var retryAfter: String?
    public var contentEncoding: String?

    public init() {}

    /// Records one header line; names are case-insensitive.
    mutating func record(name: String, value: String) {
        switch name.lowercased() {
        case "content-type": contentType = value
        case "etag": etag = value
        case "last-modified": lastModified = value
        case "cache-control": cacheControl = value
        case "expires": expires = value
        case "retry-after": retryAfter = value
        case "content-encoding": contentEncoding = value
        default: break
        }
    }
}
