import FeedModel

/// How much of the timeline one page shows: its newest `items` entries;
/// of those only the ones of the newest `days` days (UTC) that have
/// entries (`--page-days`); and of those only the ones less than `window`
/// seconds older than the newest (Planet 2.0's `days_per_page`). The
/// merged feeds keep the timeline's own limit (`--limit`).
public struct PageCap: Sendable, Equatable {
    /// nil: every entry.
    public var items: Int?
    /// nil: every day.
    public var days: Int?
    /// nil: no window.
    public var window: Int64?

    public init(items: Int? = Self.defaultItems, days: Int? = nil, window: Int64? = nil) {
        self.items = items
        self.days = days
        self.window = window
    }

    /// As Venus: a page of 60 entries.
    public static let defaultItems = 60

    /// Planet 2.0's `days_per_page`: `N` times 84,600 seconds, its code's
    /// own constant (a day is 86,400).
    public static func planetWindow(days: Int) -> Int64 { Int64(days) * 84_600 }

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
        if let window, shown > 0 {
            // Strictly newer than the newest minus the window, as Planet 2.0 compares.
            let oldest = entries[0].date.secondsSince1970 - window
            shown = entries[..<shown].firstIndex { $0.date.secondsSince1970 <= oldest } ?? shown
        }
        return shown == entries.count ? entries : Array(entries[..<shown])
    }
}
