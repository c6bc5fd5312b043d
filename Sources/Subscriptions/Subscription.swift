import FeedFetch
import FeedParse
/// One feed to read: from an OPML outline, a URL or a local file.
public struct Subscription: Sendable, Hashable {
    /// `xmlUrl`, a feed URL, or a local path.
    public var url: String
    /// The outline's `title` (else `text`).
    public var title: String?
    /// The outline's `htmlUrl`.
    public var htmlURL: String?
    /// The OPML folders around the outline, outermost first.
    public var folder: [String]
    /// The local OPML file that listed it (for `--update-opml`).
    public var opmlFile: String?

    public init(
        url: String, title: String? = nil, htmlURL: String? = nil, folder: [String] = [], opmlFile: String? = nil
    ) {
        self.url = url
        self.title = title
        self.htmlURL = htmlURL
        self.folder = folder
        self.opmlFile = opmlFile
    }
}

/// What the sources given on the command line add up to.
public struct SubscriptionList: Sendable {
    public var subscriptions: [Subscription] = []
    /// From the first OPML head: the output's fallback metadata.
    public var title: String?
    public var ownerName: String?
    public var ownerEmail: String?
    /// From the first OPML head that has one: the list's home page
    /// (`htmlUrl`, else `ownerId`), when it is an http(s) URL.
    public var homePage: String?
    /// Outlines skipped (no `xmlUrl`) and duplicates dropped, for the user.
    public var warnings: [String] = []

    /// What reading a source already fetched for a subscription (by URL):
    /// the run uses it instead of fetching again.
    public var alreadyRead: [String: Result<FetchResponse, FetchError>] = [:]

    public init() {}

    /// Normalized URLs of the subscriptions, to spot a feed listed twice.
    private var listed: Set<String> = []

    /// Adds a subscription unless the same feed is already listed.
    mutating func add(_ subscription: Subscription, read: Result<FetchResponse, FetchError>? = nil) {
        guard listed.insert(LinkNormalizer.normalize(subscription.url)).inserted else {
            warnings.append("\(subscription.url) is listed more than once; fetched once")
            return
        }
        subscriptions.append(subscription)
        if let read { alreadyRead[subscription.url] = read }
    }
}

/// A subscription list that cannot be read: exit code 2.
public struct SubscriptionError: Error, Sendable, CustomStringConvertible {
    public var source: String
    public var line: Int?
    public var message: String

    public var description: String {
        if let line { return "\(source):\(line): \(message)" }
        return "\(source): \(message)"
    }
}
