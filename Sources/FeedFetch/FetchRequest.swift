/// What to fetch, and what we remember from the last time.
public struct FetchRequest: Sendable, Hashable {
    /// An `http`/`https` URL, a `file://` URL or a local path.
    public var url: String
    /// The validators a previous response gave: sent as `If-None-Match` and
    /// `If-Modified-Since`, so an unchanged feed answers 304 with no body.
    public var etag: String?
    public var lastModified: String?

    public init(url: String, etag: String? = nil, lastModified: String? = nil) {
        self.url = url
        self.etag = etag
        self.lastModified = lastModified
    }
}
