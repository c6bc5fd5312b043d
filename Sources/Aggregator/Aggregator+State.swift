import FeedModel
import FeedState

extension Aggregator {
    /// Records one feed's outcome in the store and gives the feed's entries
    /// with their dates: a fetched feed's listed entries from the parse,
    /// dated with the store's facts (no round trip through the store), then
    /// the stored entries it no longer lists; a feed not fetched (304,
    /// failure, deferral) gives all its stored entries.
    ///
    /// Each step with the store fails alone, with a notice on the report:
    /// an outcome that cannot be recorded still gives the entries the store
    /// can read, and a stored entry that cannot be read costs that entry.
    /// - Returns: nil for a fetched feed whose store keeps no entries, or
    ///   whose facts cannot be read: its fresh entries are dated as nothing
    ///   remembered.
    static func remember(
        _ outcome: Outcome, plan: Plan, state: StateOptions, dating: EntryDating, cutoff: Timestamp?,
        pending: inout [FeedUpdate], report: inout FeedReport
    ) -> (feed: ParsedFeed, dates: [Timestamp?])? {
        let store = state.store
        let url = plan.subscription.url
        let now = dating.now
        /// The step's value, or nil with a notice (shown with and without `--verbose`).
        func attempt<Value>(_ what: String, _ step: () throws(StateError) -> Value) -> Value? {
            do {
                return try step()
            } catch {
                report.noteStateFailure("\(what): \(error)")
                return nil
            }
        }
        func record(_ update: FeedUpdate?) {
            guard let update else { return }
            _ = attempt("its fetch cannot be recorded", { () throws(StateError) in try store.record(update) })
        }
        func readable(_ entries: [StoredEntry]) -> [StoredEntry] {
            let unreadable = store.takeUnreadableCount(of: url)
            if unreadable > 0 { report.noteStateFailure("\(unreadable) stored entries cannot be read and are left out") }
            return entries
        }
        var remembered: [StoredEntry]
        let restamping: Bool
        let feedFirstSeen: Timestamp?
        var metadata = plan.record?.metadata ?? FeedMetadata()
        if case .fetched(var fetched) = outcome {
            let entries = fetched.feed.entries
            metadata = fetched.feed.metadata
            guard store.keepsEntries else {
                record(outcome.update(url: url, now: now))
                return nil
            }
            if fetched.prepared == nil { fetched.prepared = PreparedEntries(entries) }
            let keys = fetched.prepared!.keys
            // The record the run began with (read again only when there was none).
            let before =
                plan.record ?? attempt("its record cannot be read", { () throws(StateError) in try store.feed(url) })
                ?? nil
            let sightings = attempt(
                "its entries' history cannot be read; they are merged as without a state",
                { () throws(StateError) in try store.sightings(of: url) })
            restamping =
                (before?.restamping ?? false)
                || sightings.map { dating.isRestamping(entries, keys: keys, sightings: $0) } ?? false
            // Recorded even when its history cannot be read: a damaged document is replaced by
            // this listing (else every later run fails the same way).
            record(Outcome.fetched(fetched).update(url: url, now: now, restamping: restamping))
            guard let sightings else { return nil }
            // The entries stored before this fetch are those sighted: none unlisted (a feed's
            // first fetch, or the same entries again), nothing to read back.
            let listedKeys = Set(keys)
            report.listsEveryStoredEntry = sightings.keys.allSatisfy(listedKeys.contains)
            let unlisted =
                report.listsEveryStoredEntry
                ? []
                : attempt("the entries it no longer lists cannot be read and are left out") {
                    () throws(StateError) in try store.entries(of: url, notOlderThan: cutoff, except: listedKeys)
                } ?? []
            remembered = RememberedEntries.merged(
                listed: RememberedEntries.listed(entries, keys: keys, sightings: sightings, now: now),
                unlisted: readable(unlisted), cutoff: cutoff)
            feedFirstSeen = before?.firstSeen ?? now
        } else {
            if let update = outcome.update(url: url, now: now) {
                if case .notModified = outcome {
                    pending.append(update)  // nothing but timestamps: stored together at the end
                } else {
                    _ = attempt("its outcome cannot be recorded", { () throws(StateError) in try store.record(update) })
                }
            }
            remembered = readable(
                attempt("its stored entries cannot be read and are left out") {
                    () throws(StateError) in try store.entries(of: url, notOlderThan: cutoff, except: [])
                } ?? [])
            var record = plan.record
            if record == nil {
                record = attempt("its record cannot be read", { () throws(StateError) in try store.feed(url) }) ?? nil
            }
            restamping = record?.restamping ?? false
            feedFirstSeen = record?.firstSeen
        }
        var entries: [Entry] = []
        var dates: [Timestamp?] = []
        entries.reserveCapacity(remembered.count)
        dates.reserveCapacity(remembered.count)
        for index in remembered.indices {
            var entry = Entry()
            swap(&entry, &remembered[index].entry)  // moved, not copied: `remembered` is done with
            let (dated, date) = dating.dated(
                entry, of: remembered[index], restamping: restamping, feedFirstSeen: feedFirstSeen)
            entries.append(dated)
            dates.append(date)
        }
        return (ParsedFeed(format: .rss20, metadata: metadata, entries: entries), dates)
    }

    /// What the health report and the page show of a feed: its stored
    /// entries, its newest entry's date and its record, once every outcome
    /// of the run is stored.
    static func collectHealth(of report: inout FeedReport, store: any StateStore, now: Timestamp) {
        let url = report.subscription.url
        do {
            let summary = try store.summary(of: url)
            report.entriesStored = summary.count
            report.newestEntry = summary.newest.map { min($0, now) }
        } catch {
            report.noteStateFailure("its summary cannot be read: \(error)")
        }
        do {
            report.record = try store.feed(url)
        } catch {
            report.noteStateFailure("its record cannot be read: \(error)")
        }
    }
}
