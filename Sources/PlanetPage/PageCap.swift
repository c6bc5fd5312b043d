import FeedModel

/// How much of the timeline one page shows (Venus's `items_per_page` and
/// `days_per_page`): its newest `items` entries, and of those only the
/// ones of the newest `days` days (UTC) that have entries. The merged
/// feeds keep the timeline's own limit (`--limit`).
public struct PageCap: Sendable, Equatable {
    /// nil: every entry.
    public var items: Int?
    /// nil: every day.
    public var days: Int?

    public init(items: Int? = Self.defaultItems, days: Int? = nil) {
        self.items = items
        self.days = days
    }

    /// As Venus: a page of 60 entries.
    public static let defaultItems = 60

    /// The entries a page shows, of a timeline sorted newest first.
    public func apply(_ entries: [MergedEntry]) -> [MergedEntry] {
        var shown = entries.count
        if let items { shown = min(shown, items) }
        if let days {
            var seen = 0
            var day: Int64?
            for index in 0..<shown {
                let thisDay = entries[index].date.secondsSince1970.floorDivided(by: 86_400)
                if thisDay != day {
                    seen += 1
                    day = thisDay
                    if seen > days {
                        shown = index
                        break
                    }
                }
            }
        }
        return shown == entries.count ? entries : Array(entries[..<shown])
    }
}
