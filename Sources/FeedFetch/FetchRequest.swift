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

    public init(url: String, etag: String? = nil, lastModified: String? = nil, mayReadLocalFile: Bool = false) {
        self.url = url
        self.etag = etag
        self.lastModified = lastModified
        self.mayReadLocalFile = mayReadLocalFile
    }
}
