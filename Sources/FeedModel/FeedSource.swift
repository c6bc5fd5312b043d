/// Where a merged entry came from: its feed, and the subscription's folder.
///
/// Written out as Atom `source`, RSS `source` and the JSON Feed `_feedmerge`
/// extension object.
public struct FeedSource: Sendable, Hashable {
    /// The feed's own title, else the subscription's title.
    public var title: String?
    /// The feed's alternate (HTML) link.
    public var link: String?
    /// The feed's address (after permanent redirects).
    public var feedURL: String
    /// Atom `id` of the feed, when it has one.
    public var id: String?
    public var updated: Timestamp?
    /// The feed's own authors (Atom `feed/author`, RSS `managingEditor`,
    /// channel `dc:creator`, `itunes:author`, JSON Feed `authors`): they
    /// apply to its entries that name none.
    public var authors: [Person]
    /// The feed's own categories.
    public var categories: [Category]
    /// The OPML folder path, outermost first (empty outside folders).
    public var folder: [String]
    /// The feed's own picture: its icon, else its logo or image.
    public var icon: String?
    /// The feed's rights (Atom `rights`, RSS `copyright`), which a planet's
    /// theme shows beside each of its entries (Venus's `source/rights`).
    public var rights: Text?
    /// The address the feed gives itself (`FeedMetadata.selfLink`).
    public var selfLink: String?

    public init(
        title: String? = nil, link: String? = nil, feedURL: String, id: String? = nil, updated: Timestamp? = nil,
        authors: [Person] = [], categories: [Category] = [], folder: [String] = [], icon: String? = nil
    ) {
        self.icon = icon
        self.title = title
        self.link = link
        self.feedURL = feedURL
        self.id = id
        self.updated = updated
        self.authors = authors
        self.categories = categories
        self.folder = folder
    }
}

/// An entry in the merged timeline: the entry, the date it is sorted by,
/// where it came from, and where else the same entry appeared.
public struct MergedEntry: Sendable, Hashable {
    public var entry: Entry
    /// `published`, else `updated`, clamped or assigned by the timeline's rules.
    public var date: Timestamp
    public var source: FeedSource
    /// Feed URLs of the other subscriptions that carried the same entry.
    public var alsoIn: [String]
    /// Whether `entry.authors` are its feed's, credited by `creditFeedAuthors` because
    /// the entry names none of its own (Venus and Planet 2.0 show an item's own only).
    public private(set) var authorsAreTheFeeds = false

    public init(entry: Entry, date: Timestamp, source: FeedSource, alsoIn: [String] = []) {
        self.entry = entry
        self.date = date
        self.source = source
        self.alsoIn = alsoIn
    }

    /// Credits the feed's authors to an entry that names none (Atom and JSON Feed
    /// inheritance): a merged feed's entry no longer sits in its feed.
    public mutating func creditFeedAuthors() {
        authorsAreTheFeeds = entry.authors.isEmpty && !source.authors.isEmpty
        if authorsAreTheFeeds { entry.authors = source.authors }
    }

    /// The authors the entry itself names.
    public var ownAuthors: [Person] { authorsAreTheFeeds ? [] : entry.authors }
}

/// The merged feed's own metadata, from options, else the OPML head.
public struct OutputMetadata: Sendable {
    public var title: String
    public var link: String?
    public var selfURL: String?
    /// The WebSub hubs that announce its changes (`--hub`): written as `rel="hub"` links beside
    /// `rel="self"` (Atom, RSS's `atom:link`) and as JSON Feed's `hubs`.
    public var hubs: [String]
    public var id: String
    public var author: Person?
    /// The newest entry's date (not the clock), so output is reproducible.
    public var updated: Timestamp
    public var generator: String
    public var generatorVersion: String
    /// The generator's home page; nil: none is named.
    public var generatorURI: String?

    public init(
        title: String, link: String?, selfURL: String?, id: String, author: Person?, updated: Timestamp,
        generator: String, generatorVersion: String, generatorURI: String? = nil, hubs: [String] = []
    ) {
        self.title = title
        self.link = link
        self.selfURL = selfURL
        self.id = id
        self.author = author
        self.updated = updated
        self.generator = generator
        self.generatorVersion = generatorVersion
        self.generatorURI = generatorURI
        self.hubs = hubs
    }
}
