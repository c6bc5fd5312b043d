/// What to fetch, and what we remember from the last time.
public struct FetchRequest: Sendable, Hashable {
    /// An `http`/`https` URL, a `file://` URL or a local path.
    public var url: String
    /// The validators a previous response gave: sent as `If-None-Match` and
    /// `If-Modified-Since`, so an unchanged feed answers 304 with no body.
    public var etag: String?
    public var lastModified: String?
    /// Whether a `file://` URL or a local path may be read: only when the
    /// operator named it, on the command line or in a subscription list
    /// that is itself a local file they named. Off by default, so that
    /// nothing a fetched list or a feed says reaches the local disk.
    public var mayReadLocalFile: Bool
    /// A form to POST (`application/x-www-form-urlencoded`, made by `FetchRequest.form`)
    /// instead of a GET: a WebSub hub's publish ping. Its redirects are not followed.
    public var formBody: String?

    public init(url: String, etag: String? = nil, lastModified: String? = nil, mayReadLocalFile: Bool = false) {
        self.url = url
        self.etag = etag
        self.lastModified = lastModified
        self.mayReadLocalFile = mayReadLocalFile
    }

    /// A form as a request body, its fields in order: each name and value percent-encoded but
    /// for RFC 3986's unreserved characters.
    public static func form(_ fields: [(name: String, value: String)]) -> String {
        fields.map { formEncoded($0.name) + "=" + formEncoded($0.value) }.joined(separator: "&")
    }

    private static func formEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return out
    }
}
