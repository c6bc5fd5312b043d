/// One item of a feed, normalized across formats.
public struct Entry: Sendable, Hashable {
    /// Atom: `id`; RSS 2: `guid`; RSS 1.0: `rdf:about`; JSON Feed: `id`.
    public var id: String?
    /// Atom/RSS: `title`; JSON Feed: `title`.
    public var title: Text?
    /// The alternate link. Atom: `link rel="alternate"` (or no rel); RSS: `link`,
    /// else a permalink `guid`; JSON Feed: `url`.
    public var link: String?
    /// Atom: `summary`; RSS: `description`; JSON Feed: `summary`.
    public var summary: Text?
    /// Atom: `content`; RSS: `content:encoded`; JSON Feed: `content_html`, `content_text`.
    public var content: [Text] = []
    /// Atom: `published` (0.3: `issued`); RSS 2: `pubDate`; Dublin Core: `dc:date`;
    /// JSON Feed: `date_published`.
    public var published: Timestamp?
    /// Atom: `updated` (0.3: `modified`); `dc:modified`, `atom:updated` in RSS;
    /// JSON Feed: `date_modified`.
    public var updated: Timestamp?
    public var authors: [Person] = []
    public var contributors: [Person] = []
    public var enclosures: [Enclosure] = []
    public var categories: [Category] = []
    /// Atom: `rights`; RSS: `dc:rights`, `copyright`.
    public var rights: Text?
    /// RSS 2: `comments`.
    public var comments: String?
    /// `xml:lang` in scope, `dc:language`; JSON Feed: `language`.
    public var language: String?
    /// Media RSS `media:thumbnail`, iTunes `itunes:image`; JSON Feed: `image`.
    public var image: String?
    /// iTunes `itunes:explicit` (`true`/`yes`/`explicit` against `false`/`no`/`clean`);
    /// Media RSS `media:rating` of `adult`/`nonadult`. nil when the document does not say.
    public var explicit: Bool?

    public init() {}
}

extension Entry {
    /// The entry's own date: `published`, else `updated` (nil when it has neither).
    public var ownDate: Timestamp? { published ?? updated }
}
