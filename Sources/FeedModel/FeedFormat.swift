/// The syndication format a document was written in.
public enum FeedFormat: String, Sendable, Hashable {
    case rss20 = "rss2.0"
    case rss09x = "rss0.9x"
    case rss10 = "rss1.0"
    case atom10 = "atom1.0"
    case atom03 = "atom0.3"
    case jsonFeed10 = "jsonfeed1.0"
    case jsonFeed11 = "jsonfeed1.1"
    /// Microsoft's Channel Definition Format (1997), read as far as it maps.
    case cdf
}
