import FeedModel

/// The feed an entry is handed to its filters with: what Venus's
/// `reconstitute` writes into the entry's `source` and takes its fallbacks
/// from.
struct FilterFeed {
    var metadata: FeedMetadata
    var format: FeedFormat
    /// The address the feed was read from.
    var url: String?
    /// Venus's `planet_*` values without their prefix: the subscription's
    /// options (`name`, `face`, …) and what its fetch said (`http_status`, …).
    var properties: [String: String]
    /// When the entry is seen: the date of last resort.
    var now: Timestamp

    /// The feed's own date (Atom `updated`; RSS `lastBuildDate`, else `pubDate`),
    /// not when it lies after `now`.
    var date: Timestamp? {
        metadata.dateForUndatedEntries.flatMap { $0 > now ? nil : $0 }
    }

    /// The name Venus's feed parser gives the format (`planet:format`).
    var venusFormat: String {
        switch format {
        case .rss20: "rss20"
        case .rss09x: "rss091u"
        case .rss10: "rss10"
        case .atom10: "atom10"
        case .atom03: "atom03"
        case .jsonFeed10: "json1"
        case .jsonFeed11: "json11"
        case .cdf: "cdf"
        }
    }

    /// The media type of the feed's `self` link, as Venus's spider sets it.
    var selfType: String {
        switch format {
        case .rss20, .rss09x: "application/rss+xml"
        case .rss10: "application/rdf+xml"
        case .jsonFeed10, .jsonFeed11: "application/feed+json"
        case .atom10, .atom03, .cdf: "application/atom+xml"
        }
    }

    /// Whether the format is RSS, where Venus's feed parser calls `pubDate` and `dc:date` `updated`.
    var isRSS: Bool { format == .rss20 || format == .rss09x || format == .rss10 }
}
