import FeedModel
import TimelineMerge

extension Timeline {
    /// Inserts a feed nothing is remembered of, dated by `EntryDating`
    /// without a state (what a `--no-state` run does to a fetched feed).
    /// - Returns: how many of its entries the timeline kept.
    @discardableResult
    public mutating func insert(feed: consuming ParsedFeed, source: FeedSource, subscription: Int) -> Int {
        var feed = feed
        let dates = EntryDating(rules: rules).dates(ofFresh: &feed)
        return insert(feed: consume feed, dates: dates, source: source, subscription: subscription)
    }
}
