import EntryFilters
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
    /// Given on the command line, not named `.opml`: what is fetched may
    /// turn out to be a subscription list, which the run then expands.
    public var mayBeList = false
    /// Named by the operator (on the command line, or in a subscription
    /// list that is a local file they named): a local path or `file:` URL
    /// may be read. A list fetched over the network, or read from standard
    /// input, lists web feeds only.
    public var mayReadLocalFile = false
    /// Its other settings, which reach the page's theme (a Venus
    /// configuration section's `face`, `facewidth`, …).
    public var properties: [String: String] = [:]
    /// Its title and properties are HTML, as a Venus or Planet 2.0
    /// configuration writes them (`name = Ga&#235;l`), which templates get
    /// as written; elsewhere they are text.
    public var propertiesAreMarkup = false
    /// What is done to its entries when its feed is parsed (`filter`,
    /// `exclude`, `ignore_in_feed`, `filters`: see EntryFilters).
    public var filters = EntryFilters()

    public init(
        url: String, title: String? = nil, htmlURL: String? = nil, folder: [String] = [], opmlFile: String? = nil,
        mayReadLocalFile: Bool = false
    ) {
        self.url = url
        self.mayReadLocalFile = mayReadLocalFile
        self.title = title
        self.htmlURL = htmlURL
        self.folder = folder
        self.opmlFile = opmlFile
    }
}

/// Where the subscriptions read go, in order, each feed once: held whole
/// (`SubscriptionList`) or packed (`PackedSubscriptions`).
public protocol SubscriptionCollection {
    var title: String? { get set }
    var ownerName: String? { get set }
    var ownerEmail: String? { get set }
    var homePage: String? { get set }
    var warnings: [String] { get set }
    /// Adds a subscription unless the same feed is already listed (by its
    /// normalized URL), saying so among the warnings.
    /// - Parameter read: the feed, when it was read with the sources.
    mutating func add(_ subscription: Subscription, read: FetchResponse?)
    /// Where the collection stands: what `rollBack(to:)` returns it to.
    var mark: SubscriptionMark { get }
    /// Forgets the subscriptions and warnings added since `mark` (a list read
    /// again from its start, or one that could not be read).
    mutating func rollBack(to mark: SubscriptionMark)
}

/// How many subscriptions and warnings a collection had.
public struct SubscriptionMark: Sendable {
    public var subscriptions: Int
    public var warnings: Int

    public init(subscriptions: Int, warnings: Int) {
        self.subscriptions = subscriptions
        self.warnings = warnings
    }
}

/// What the sources given on the command line add up to.
public struct SubscriptionList: SubscriptionCollection, Sendable {
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

    /// A feed read with the sources (standard input), by subscription URL:
    /// the run uses it instead of reading again.
    public var alreadyRead: [String: FetchResponse] = [:]

    public init() {}

    /// Normalized URLs of the subscriptions, to spot a feed listed twice.
    private var listed: Set<String> = []

    public mutating func add(_ subscription: Subscription, read: FetchResponse?) {
        guard listed.insert(LinkNormalizer.normalize(subscription.url)).inserted else {
            warnings.append(Self.listedTwice(subscription.url))
            return
        }
        subscriptions.append(subscription)
        if let read { alreadyRead[subscription.url] = read }
    }

    public var mark: SubscriptionMark {
        SubscriptionMark(subscriptions: subscriptions.count, warnings: warnings.count)
    }

    public mutating func rollBack(to mark: SubscriptionMark) {
        for subscription in subscriptions[mark.subscriptions...] {
            listed.remove(LinkNormalizer.normalize(subscription.url))
            alreadyRead[subscription.url] = nil
        }
        subscriptions.removeSubrange(mark.subscriptions...)
        warnings.removeSubrange(mark.warnings...)
    }

    static func listedTwice(_ url: String) -> String { "\(url) is listed more than once; fetched once" }

    /// Whether a document is a subscription list (its root is `<opml>`).
    public static func isOPML(_ bytes: [UInt8]) -> Bool { OPMLReader.isOPML(bytes) }
}

extension SubscriptionCollection {
    mutating func add(_ subscription: Subscription) { add(subscription, read: nil) }

    /// Adds the feeds an OPML document lists (those not listed already);
    /// the first head's title, owner and home page are kept.
    /// - Parameters:
    ///   - localFile: the file it was read from, for `--update-opml`.
    ///   - namesLocalFiles: the list is a local file the operator named, so
    ///     the local paths and `file:` URLs it lists may be read; a list
    ///     fetched over the network or read from standard input lists web
    ///     feeds only (its local entries fail as refused, unopened).
    public mutating func add(opml bytes: [UInt8], source: String, localFile: String?, namesLocalFiles: Bool)
        throws(SubscriptionError)
    {
        try OPMLReader.read(bytes, source: source, into: &self, localFile: localFile, namesLocalFiles: namesLocalFiles)
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
