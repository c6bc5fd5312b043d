/// A feed's own metadata, normalized across formats.
public struct FeedMetadata: Sendable, Hashable {
    /// Atom/RSS/JSON Feed: `title`.
    public var title: Text?
    /// Atom: `subtitle` (0.3: `tagline`); RSS: `description`; JSON Feed: `description`.
    public var subtitle: Text?
    /// Atom: `link rel="alternate"`; RSS: `link`; JSON Feed: `home_page_url`.
    public var link: String?
    /// Atom: `id`; RSS 1.0: `rdf:about`; JSON Feed: `feed_url`.
    public var id: String?
    /// The address the feed gives itself: Atom (and `atom:link` in RSS):
    /// `link rel="self"`; JSON Feed: `feed_url`. Its author's claim, which
    /// Venus shows as the subscription's address.
    public var selfLink: String?
    /// The WebSub hubs the feed says announce its changes: Atom (and `atom:link` in RSS):
    /// `link rel="hub"`; JSON Feed: `hubs[].url`.
    public var hubs: [String] = []
    /// Atom: `updated` (0.3: `modified`); RSS: `lastBuildDate`, `dc:date`.
    public var updated: Timestamp?
    /// RSS: `lastBuildDate` (also `updated`, unless the feed gives a
    /// better one): when the file was made, which Venus does not read as
    /// the feed's date.
    public var built: Timestamp?
    /// RSS: `pubDate`.
    public var published: Timestamp?
    /// Atom: `rights` (0.3: `copyright`); RSS: `copyright`, `dc:rights`.
    public var rights: Text?
    /// RSS: `language`, `dc:language`; Atom: `xml:lang` of the root; JSON Feed: `language`.
    public var language: String?
    /// Atom: `icon`; JSON Feed: `favicon`.
    public var icon: String?
    /// Atom: `logo`; JSON Feed: `icon`.
    public var logo: String?
    /// RSS: `image/url`; iTunes: `itunes:image`.
    public var image: String?
    /// Atom/RSS: `generator`.
    public var generator: String?
    public var authors: [Person] = []
    public var contributors: [Person] = []
    public var categories: [Category] = []
    /// iTunes `itunes:explicit` of the channel; Media RSS `media:rating` of the channel.
    public var explicit: Bool?
    /// RSS 2.0 `ttl`: minutes the feed may be cached before it is asked again.
    public var ttlMinutes: Int?
    /// The Syndication module's `sy:updatePeriod` and `sy:updateFrequency`:
    /// the seconds between the feed's updates (a day, by default, divided by the frequency).
    public var updateInterval: Int?
    /// RSS 2.0 `skipHours`: the hours of the day (0–23, GMT) in which the
    /// feed asks not to be read; `skipDays`: the days (1 Monday … 7 Sunday).
    public var skipHours: Set<Int> = []
    public var skipDays: Set<Int> = []

    public init() {}
}

/// What parsing one document gives: its format, the feed's metadata, its
/// entries in document order, and warnings about what was repaired or dropped.
public struct ParsedFeed: Sendable, Hashable {
    public var format: FeedFormat
    public var metadata: FeedMetadata
    public var entries: [Entry]
    public var warnings: [String]

    public init(format: FeedFormat, metadata: FeedMetadata, entries: [Entry], warnings: [String] = []) {
        self.format = format
        self.metadata = metadata
        self.entries = entries
        self.warnings = warnings
    }
}

extension FeedMetadata {
    /// The feed's own date as Venus's feed parser reads it, which dates the
    /// entries that have none: RSS's channel `pubDate`, else its `dc:date`
    /// or Atom's `updated` (never `lastBuildDate`, `built`, which says when
    /// the file was made, not when anything was published).
    public var dateForUndatedEntries: Timestamp? {
        published ?? (updated == built ? nil : updated)
    }
}
