import FeedModel

/// One subscription as the page shows it: the feed's own title and links,
/// the name the subscription list gives it, and its health.
public struct PlanetSource: Sendable {
    /// ok, partial (read in part: cut short or not well-formed;
    /// `partialReason` says why), stale (answers, but nothing new for a long time), deferred
    /// (not asked this run: Retry-After or cache lifetime), failing, gone (410).
    public enum Status: String, Sendable {
        case ok, partial, stale, deferred, failing, gone
    }

    /// `planet:name`: the subscription list's title, else the feed's, else its address.
    public var name: String
    /// The address fetched (`link rel="self"`).
    public var feedURL: String
    /// The feed's own title, as the feed reports it.
    public var title: String?
    /// The feed's home page (`link rel="alternate"`).
    public var link: String?
    /// The feed's Atom id, else its address.
    public var id: String?
    public var subtitle: String?
    public var icon: String?
    public var status: Status
    /// Why it failed (`planet:message`), when it did.
    public var message: String?
    public var httpStatus: Int?
    /// Where a permanent redirect says it now lives (`planet:http_location`).
    public var location: String?
    /// Why it was read only in part this run (`feedmerge:partial`; not Venus's
    /// `planet:message`, which its themes show as a failure).
    public var partialReason: String?
    /// The address shown for it when not `feedURL`: a Venus planet shows the
    /// one its feed gives itself (`rel="self"`), as Venus does.
    public var shownAddress: String?
    /// With a state: its last successful fetch, and the newest entry stored.
    public var lastSuccess: Timestamp?
    public var newestEntry: Timestamp?
    /// Consecutive failed fetches, and when the failing began (with a state).
    public var failures: Int
    public var failingSince: Timestamp?
    /// The OPML folders around it, outermost first.
    public var folder: [String]
    /// The subscription's other settings (a Venus configuration's `face`,
    /// `facewidth`, …), each written as `planet:KEY` as Venus writes them.
    public var properties: [String: String]
    /// `name` (when the subscription gives it) and `properties` are HTML as
    /// the operator wrote them (a Venus configuration's): an htmltmpl
    /// template gets them as written, as Venus and Planet 2.0 hand them.
    public var propertiesAreMarkup = false

    public init(
        name: String, feedURL: String, title: String? = nil, link: String? = nil, id: String? = nil,
        subtitle: String? = nil, icon: String? = nil, status: Status = .ok, message: String? = nil,
        httpStatus: Int? = nil, location: String? = nil, lastSuccess: Timestamp? = nil,
        newestEntry: Timestamp? = nil, failures: Int = 0, failingSince: Timestamp? = nil, folder: [String] = [],
        properties: [String: String] = [:]
    ) {
        self.properties = properties
        self.name = name
        self.feedURL = feedURL
        self.title = title
        self.link = link
        self.id = id
        self.subtitle = subtitle
        self.icon = icon
        self.status = status
        self.message = message
        self.httpStatus = httpStatus
        self.location = location
        self.lastSuccess = lastSuccess
        self.newestEntry = newestEntry
        self.failures = failures
        self.failingSince = failingSince
        self.folder = folder
    }
}

/// Everything a page is made of, besides its theme.
public struct PlanetPageInput: Sendable {
    public var entries: [MergedEntry]
    public var metadata: OutputMetadata
    public var sources: [PlanetSource]
    /// The run's time: the page's "last updated".
    public var generated: Timestamp
    /// Show summaries, not content (`--summary-only`).
    public var summaryOnly: Bool
    /// Links the theme gets as parameters, by name (`atom`, `rss`, `json`,
    /// `opml`): the other outputs of the run, relative to the page.
    public var links: [String: String]
    /// How long `planet:excerpt` is, in characters (Venus's `excerpt.py` width).
    public var excerptLength = Excerpt.defaultLength
    /// The planet's own settings a template may use (a Venus configuration's
    /// `[Planet]` options: `date_format`, `pubsubhubbub_hub`, …).
    public var settings: [String: String] = [:]
    /// The file the page is written to (its name makes Venus's `url` and `fullurl`).
    public var outputName: String?
    /// The default theme's list of subscriptions, made apart from the page
    /// a part at a time (`PageSubscriptions`): with the built-in theme, the
    /// page lists these, and `sources` need name only the feeds of `entries`.
    /// Another theme reads `sources`.
    public var subscriptions: SortedSubscriptions?

    public init(
        entries: [MergedEntry], metadata: OutputMetadata, sources: [PlanetSource], generated: Timestamp,
        summaryOnly: Bool = false, links: [String: String] = [:]
    ) {
        self.entries = entries
        self.metadata = metadata
        self.sources = sources
        self.generated = generated
        self.summaryOnly = summaryOnly
        self.links = links
    }
}

extension PlanetSource {
    /// The feed's address as the page shows it: `shownAddress` when it is one a
    /// page may link to, else the address fetched.
    public var shownFeedAddress: String { shownAddress.flatMap(PageLink.safe) ?? feedURL }
}
