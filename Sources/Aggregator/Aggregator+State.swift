import FeedModel
import FeedState

extension Aggregator {
    /// Records one feed's outcome in the store and gives the feed's entries
    /// with their dates: a fetched feed's listed entries from the parse,
    /// dated with the store's facts (no round trip through the store), then
    /// the stored entries it no longer lists; a feed not fetched (304,
    /// failure, deferral) gives all its stored entries.
    /// - Returns: nil for a fetched feed whose store keeps no entries: its
    ///   fresh entries are dated as nothing remembered.
    static func remember(
        _ outcome: Outcome, plan: Plan, state: StateOptions, dating: EntryDating, cutoff: Timestamp?,
        pending: inout [FeedUpdate], report: inout FeedReport
    ) throws(StateError) -> (feed: ParsedFeed, dates: [Timestamp?])? {
        let store = state.store
        let url = plan.subscription.url
        let now = dating.now
        func collectHealth() throws(StateError) {
            guard state.health else { return }
            let summary = try store.summary(of: url)
            report.record = try store.feed(url)
            report.entriesStored = summary.count
            report.newestEntry = summary.newest.map { min($0, now) }
        }
        let remembered: [StoredEntry]
        let restamping: Bool
        let feedFirstSeen: Timestamp?
        var metadata = plan.record?.metadata ?? FeedMetadata()
        if case .fetched(let fetched) = outcome {
            let entries = fetched.feed.entries
            metadata = fetched.feed.metadata
            guard store.keepsEntries else {
                if let update = outcome.update(url: url, now: now) { try store.record(update) }
                try collectHealth()
                return nil
            }
            let keys = entries.map(EntryKey.of)
            let before = try store.feed(url)
            let sightings = try store.sightings(of: url)
            restamping =
                (before?.restamping ?? false) || dating.isRestamping(entries, keys: keys, sightings: sightings)
            if let update = outcome.update(url: url, now: now, keys: keys, restamping: restamping) {
                try store.record(update)
            }
            let unlisted = try store.entries(of: url, notOlderThan: cutoff, except: Set(keys))
            remembered = RememberedEntries.merged(
                listed: RememberedEntries.listed(entries, keys: keys, sightings: sightings, now: now),
                unlisted: unlisted, cutoff: cutoff)
            feedFirstSeen = before?.firstSeen ?? now
        } else {
            if let update = outcome.update(url: url, now: now) {
                if case .notModified = outcome {
                    pending.append(update)  // nothing but timestamps: stored together at the end
                } else {
                    try store.record(update)
                }
            }
            remembered = try store.entries(of: url, notOlderThan: cutoff, except: [])
            var record = plan.record
            if record == nil { record = try store.feed(url) }
            restamping = record?.restamping ?? false
            feedFirstSeen = record?.firstSeen
        }
        try collectHealth()
        var entries: [Entry] = []
        var dates: [Timestamp?] = []
        entries.reserveCapacity(remembered.count)
        dates.reserveCapacity(remembered.count)
        for stored in remembered {
            let (entry, date) = dating.dated(stored, restamping: restamping, feedFirstSeen: feedFirstSeen)
            entries.append(entry)
            dates.append(date)
        }
        return (ParsedFeed(format: .rss20, metadata: metadata, entries: entries), dates)
    }
}
