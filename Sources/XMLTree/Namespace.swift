/// The XML namespaces feeds use, with the prefixes *we* use for them in XPath.
///
/// A document may bind any prefix (or none) to these URIs; queries always use
/// these prefixes, registered on every XPath context.
public enum Namespace: String, CaseIterable, Sendable {
    case atom = "http://www.w3.org/2005/Atom"
    case atom03 = "http://purl.org/atom/ns#"
    case rss10 = "http://purl.org/rss/1.0/"
    case rss09 = "http://my.netscape.com/rdf/simple/0.9/"
    case rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    case dc = "http://purl.org/dc/elements/1.1/"
    case dcterms = "http://purl.org/dc/terms/"
    case content = "http://purl.org/rss/1.0/modules/content/"
    case media = "http://search.yahoo.com/mrss/"
    case itunes = "http://www.itunes.com/dtds/podcast-1.0.dtd"
    /// Google Play's podcast namespace: a subset of iTunes' (author, description, image, category, explicit).
    case googleplay = "http://www.google.com/schemas/play-podcasts/1.0"
    case xhtml = "http://www.w3.org/1999/xhtml"
    case xml = "http://www.w3.org/XML/1998/namespace"
    case slash = "http://purl.org/rss/1.0/modules/slash/"
    case wfw = "http://wellformedweb.org/CommentAPI/"
    case feedburner = "http://rssnamespace.org/feedburner/ext/1.0"
    /// RSS 1.0's Syndication module: how often the feed is updated.
    case syndication = "http://purl.org/rss/1.0/modules/syndication/"
    /// RSS 2.0 elements put in a namespace (Userland's, later Harvard's); every
    /// variant of those URIs is read as this one.
    case rss20 = "http://backend.userland.com/rss2"
    /// Any namespace not listed here: it is *some* namespace, so its
    /// elements are never mistaken for unqualified RSS ones.
    case other = "urn:x-feedmerge:other"

    /// The prefix registered for this namespace in XPath queries.
    public var prefix: String {
        switch self {
        case .atom: "atom"
        case .atom03: "atom03"
        case .rss10: "rss"
        case .rss09: "rss09"
        case .rdf: "rdf"
        case .dc: "dc"
        case .dcterms: "dcterms"
        case .content: "content"
        case .media: "media"
        case .itunes: "itunes"
        case .googleplay: "googleplay"
        case .xhtml: "xhtml"
        case .xml: "xml"
        case .slash: "slash"
        case .wfw: "wfw"
        case .feedburner: "feedburner"
        case .syndication: "sy"
        case .rss20: "rss20"
        case .other: "other"
        }
    }

    /// The namespace a URI names, accepting the variants found in the wild
    /// (a missing trailing slash, other case, Dublin Core 1.0).
    public init?(uri: String) {
        if let exact = Namespace(rawValue: uri) {
            self = exact
            return
        }
        switch uri.lowercased() {
        case "http://www.w3.org/2005/atom", "https://www.w3.org/2005/atom": self = .atom
        case "http://purl.org/atom/ns#draft-ietf-atompub-format-08": self = .atom
        // The drafts before Atom 0.3 (Mark Pilgrim's "Echo"/"Pie"/"Necho"
        // experiments of 2003): read as Atom 0.3.
        case "http://example.com/newformat#", "http://example.com/necho", "http://necho.org/ns#",
            "http://purl.org/echo/", "http://purl.org/pie/", "http://purl.org/echo", "http://purl.org/pie",
            "http://purl.org/atom/ns", "https://purl.org/atom/ns#":
            self = .atom03
        case "http://purl.org/rss/1.0", "https://purl.org/rss/1.0/": self = .rss10
        case "http://purl.org/dc/elements/1.0/", "http://purl.org/dc/elements/1.1",
            "https://purl.org/dc/elements/1.1/":
            self = .dc
        case "http://purl.org/dc/terms", "https://purl.org/dc/terms/": self = .dcterms
        case "http://purl.org/rss/1.0/modules/content", "https://purl.org/rss/1.0/modules/content/":
            self = .content
        case "http://search.yahoo.com/mrss", "https://search.yahoo.com/mrss/", "http://video.search.yahoo.com/mrss",
            "http://video.search.yahoo.com/mrss/", "http://search.yahoo.com/mrss/rss":
            self = .media
        case "http://www.itunes.com/dtds/podcast-1.0.dtd", "https://www.itunes.com/dtds/podcast-1.0.dtd",
            "http://www.itunes.com/dtds/podcast-1.0.dtd/":
            self = .itunes
        case "http://www.google.com/schemas/play-podcasts/1.0/", "https://www.google.com/schemas/play-podcasts/1.0":
            self = .googleplay
        case "http://www.w3.org/1999/xhtml/": self = .xhtml
        case "http://my.netscape.com/rdf/simple/0.9": self = .rss09
        case "http://blogs.law.harvard.edu/tech/rss", "http://blogs.law.harvard.edu/tech/rss/",
            "http://backend.userland.com/rss2/", "http://backend.userland.com/rss", "http://backend.userland.com/rss/":
            self = .rss20
        case let other where other.hasPrefix("http://backend.userland.com/rss2"):
            self = .rss20  // rss2.1, rss2.0.1: Userland's versioned namespaces
        default: return nil
        }
    }

    /// The namespace conventionally bound to a prefix, for documents that use
    /// a prefix without declaring it (`<dc:creator>` with no `xmlns:dc`).
    public init?(conventionalPrefix prefix: String) {
        switch prefix {
        case "atom": self = .atom
        case "dc": self = .dc
        case "dcterms": self = .dcterms
        case "content": self = .content
        case "media": self = .media
        case "itunes": self = .itunes
        case "googleplay": self = .googleplay
        case "rdf": self = .rdf
        case "xhtml": self = .xhtml
        case "slash": self = .slash
        case "wfw": self = .wfw
        case "feedburner": self = .feedburner
        default: return nil
        }
    }
}
