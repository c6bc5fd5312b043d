import FeedModel
import FeedState
import TimelineMerge

/// How every entry gets the date the timeline sorts it by: one policy for
/// fresh and stored entries, with a state or without, built from the run's
/// rules. The timeline sorts by the dates it is given; the store keeps the
/// facts this policy decides from (`EntrySighting`, `StoredEntry`) and the
/// restamping flag it decides.
public struct EntryDating: Sendable {
    /// The run's time.
    public var now: Timestamp
    public var future: TimelineRules.FuturePolicy
    /// How long entries a feed no longer lists are kept: a new feed's backlog
    /// is dated that far back, so it sorts as history.
    public var keepDays: Int
    /// A new feed's undated entries beyond its first N are its backlog.
    public var newFeedItems: Int
    public var style: TimelineRules.DatingStyle

    public init(
        rules: TimelineRules, keepDays: Int = StateOptions.defaultKeepDays,
        newFeedItems: Int = StateOptions.defaultNewFeedItems
    ) {
        now = rules.now
        future = rules.future
        style = rules.dating
        self.keepDays = keepDays
        self.newFeedItems = newFeedItems
    }

    /// The dates of a feed's entries nothing is remembered of (no state, or
    /// its facts unreadable): each entry's `published`, else `updated`, else
    /// the feed's own date (Venus's fallback; not one after the run's time
    /// unless `future` keeps such dates), else the run's time; a future date kept,
    /// clamped to now, or dropped (nil) per `future`. Clamping lowers the
    /// entry's own dates too, so that every output agrees; no other entry is
    /// written to (the array stays shared with whoever else holds it).
    public func dates(ofFresh feed: inout ParsedFeed) -> [Timestamp?] {
        let feedDate = self.feedDate(feed.metadata.dateForUndatedEntries).flatMap {
            future == .keep || $0 <= now ? $0 : nil
        }
        let hidesBacklog = hidesBacklog(feedDate: feed.metadata.dateForUndatedEntries)
        var dates: [Timestamp?] = []
        dates.reserveCapacity(feed.entries.count)
        for index in feed.entries.indices {
            if hidesBacklog && index >= newFeedItems {
                dates.append(nil)
                continue
            }
            let published = feed.entries[index].published
            let updated = feed.entries[index].updated
            var date = preferred(published: published, updated: updated) ?? feedDate ?? now
            if date > now {
                switch future {
                case .keep: break
                case .clamp: date = now
                case .drop:
                    dates.append(nil)
                    continue
                }
            }
            if future == .clamp, published.map({ $0 > now }) == true || updated.map({ $0 > now }) == true {
                clampOwnDates(&feed.entries[index])
            }
            dates.append(date)
        }
        return dates
    }

    /// A remembered entry (stored, or fresh with the store's facts) and its
    /// date: a restamping feed's entries take the date first seen, undated
    /// ones their feed's date (`feedDate`, as Venus dates them) when that is
    /// before their first-seen time, else their first-seen time (the same
    /// on every run), a new feed's undated backlog (`isBacklog`) its
    /// first-seen time minus `keepDays` minus its first position in seconds
    /// (or its feed's date, when earlier); a future date becomes the
    /// first-seen time whatever `future` says (a state knows when the entry
    /// appeared); with `.clamp`, the entry's own dates are clamped too.
    public func dated(
        _ stored: StoredEntry, restamping: Bool, feedFirstSeen: Timestamp?, feedDate: Timestamp? = nil
    ) -> (Entry, Timestamp) {
        dated(
            stored.entry, sighted: stored.sighting, restamping: restamping, feedFirstSeen: feedFirstSeen,
            feedDate: feedDate)
    }

    /// `dated(_:restamping:feedFirstSeen:)` for an entry and what the store
    /// knows of it (`sighted`), wherever the two come from (a run moves a
    /// stored entry out of its stored form first, so that it is not copied).
    public func dated(
        _ entry: consuming Entry, sighted: EntrySighting, restamping: Bool, feedFirstSeen: Timestamp?,
        feedDate: Timestamp? = nil
    ) -> (Entry, Timestamp) {
        var entry = entry
        let (date, own) = self.date(
            published: entry.published, updated: entry.updated, sighted: sighted, restamping: restamping,
            feedFirstSeen: feedFirstSeen, feedDate: feedDate)
        if let own {
            entry.published = own.published
            entry.updated = own.updated
        }
        return (entry, date)
    }

    /// The policy of `dated(_:restamping:feedFirstSeen:)` on an entry's own
    /// dates (`published`, `updated`), without the entry: its date, and its
    /// own dates as the policy leaves them (nil when they stay as they are).
    /// A run dates the entries of a fetched feed where they are, and writes
    /// to one only where a date changes.
    /// - Parameters:
    ///   - sighted: what the store knows of the entry (or, first seen now,
    ///     what it will know).
    ///   - feedDate: the feed's own date (its metadata's, as last fetched).
    public func date(
        published entryPublished: Timestamp?, updated entryUpdated: Timestamp?, sighted: EntrySighting,
        restamping: Bool, feedFirstSeen: Timestamp?, feedDate: Timestamp? = nil
    ) -> (date: Timestamp, ownDates: (published: Timestamp?, updated: Timestamp?)?) {
        var published = entryPublished
        var updated = entryUpdated
        if restamping {
            published = sighted.firstDate ?? sighted.firstSeen
            updated = nil
        } else if published == nil && updated == nil {
            var fallback = sighted.firstSeen
            if isBacklog(sighted, feedFirstSeen: feedFirstSeen) {
                let history = Int64(keepDays) * 86_400 + Int64(sighted.firstPosition)
                fallback = Timestamp(secondsSince1970: sighted.firstSeen.secondsSince1970 - history)
            }
            // Venus dates an entry its feed gives no date by the feed's date; never
            // later than first seen, so that an entry keeps its place on later runs.
            let feedDate = self.feedDate(feedDate)
            published = min(fallback, feedDate ?? fallback)
        }
        if let date = preferred(published: published, updated: updated), date > now {
            published = min(sighted.firstSeen, now)
            updated = nil
        }
        if future == .clamp {
            published = published.map { min($0, now) }
            updated = updated.map { min($0, now) }
        }
        // Set above whenever both were missing.
        let date = preferred(published: published, updated: updated) ?? sighted.firstSeen
        let unchanged = published == entryPublished && updated == entryUpdated
        return (date, unchanged ? nil : (published, updated))
    }

    /// The latest date this policy can give any of a feed's stored entries
    /// (`dated`), from what bounds them (`StoredDates`); nil when none is
    /// stored. A stored entry is dated by its own date (or the one first
    /// seen, when restamping) if it has one not after `now`, else by its
    /// first-seen time (never after `now`); the backlog and clamping only
    /// lower that. The first-seen times that count are those of entries
    /// without such dates, or with one after the facts' pivot, and, when
    /// `now` is before a date at or before the pivot, every entry's.
    public func latestDate(of stored: StoredDates) -> Timestamp? {
        guard stored.count > 0, let lastFirstSeen = stored.lastFirstSeen else { return nil }
        // The facts bound `Entry.ownDate` (`published` first): an entry dated by a later
        // `updated` may pass them, but never `now` (see `date`).
        guard style == .feedmerge else { return now }
        let now = now.secondsSince1970
        let own = stored.newestOwnDate(notAfter: self.now)?.secondsSince1970 ?? Int64.min
        var seen = stored.lastFirstSeenOfUndated ?? Int64.min
        if let newestPast = stored.newestPast, now < newestPast { seen = lastFirstSeen }
        return Timestamp(secondsSince1970: min(max(own, min(seen, now)), now))
    }

    /// A timeline's cutoff as the store's facts can apply it (they bound
    /// `Entry.ownDate`, `published` first): none for a style that dates by
    /// `updated` first.
    public func cutoff(_ cutoff: Timestamp?) -> Timestamp? { style == .feedmerge ? cutoff : nil }

    /// Which of an entry's own dates dates it, by `style`.
    func preferred(published: Timestamp?, updated: Timestamp?) -> Timestamp? {
        style == .feedmerge ? published ?? updated : updated ?? published
    }

    /// The feed's date as a fallback for its undated entries: Planet 2.0 has none.
    private func feedDate(_ date: Timestamp?) -> Timestamp? { style == .planet2 ? nil : date }

    /// Whether a feed's backlog (`isBacklog`) is hidden rather than dated: Planet 2.0
    /// hides it when the feed has no date of its own (`feedDate`).
    public func hidesBacklog(feedDate: Timestamp?) -> Bool { style == .planet2 && feedDate == nil }

    /// An entry that came with its feed's first fetch, beyond its first
    /// `newFeedItems`: a new feed's history, not news.
    public func isBacklog(_ stored: StoredEntry, feedFirstSeen: Timestamp?) -> Bool {
        isBacklog(stored.sighting, feedFirstSeen: feedFirstSeen)
    }

    func isBacklog(_ sighted: EntrySighting, feedFirstSeen: Timestamp?) -> Bool {
        sighted.firstSeen == feedFirstSeen && sighted.firstPosition >= newFeedItems
    }

    /// Whether a feed stamps its entries when it is fetched: the dates moved
    /// for most entries seen before, or every date (at least two) lies
    /// within 120 s of the fetch, for a feed with entries seen before.
    /// - Parameters:
    ///   - keys: `EntryKey.keys(of: entries)`.
    ///   - sightings: what the store knew before this fetch.
    public func isRestamping(_ entries: [Entry], keys: [String], sightings: [String: EntrySighting]) -> Bool {
        var seenAgain = 0
        var moved = 0
        var nearNow = 0
        var dated = 0
        for index in entries.indices {
            let date = entries[index].ownDate
            if let date {
                dated += 1
                if abs(date.secondsSince1970 - now.secondsSince1970) <= 120 { nearNow += 1 }
            }
            if let previous = sightings[keys[index]] {
                seenAgain += 1
                if let date, let first = previous.firstDate, date != first { moved += 1 }
            }
        }
        return (seenAgain >= 2 && moved * 2 > seenAgain) || (dated >= 2 && nearNow == dated && !sightings.isEmpty)
    }

    private func clampOwnDates(_ entry: inout Entry) {
        entry.published = entry.published.map { min($0, now) }
        entry.updated = entry.updated.map { min($0, now) }
    }
}
