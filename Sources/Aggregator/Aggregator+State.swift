import FeedModel
import FeedState
import TimelineMerge

extension Aggregator {
    /// Records a fetched feed's outcome in the store and dates its entries
    /// where they are, with the store's facts (no round trip through the
    /// store): the listed entries as the store will hold them, then the
    /// stored ones the feed no longer lists (`RememberedEntries.date`).
    ///
    /// Each step with the store fails alone, with a notice on the report:
    /// an outcome that cannot be recorded still gives the entries, and a
    /// stored entry that cannot be read costs that entry.
    /// - Parameter recordsKnown: the run read every record the store has, so
    ///   a feed without one (`plan.record`) has nothing stored: nothing is read.
    /// - Returns: the entries' dates; nil when the store keeps no entries, or
    ///   the feed's facts cannot be read: its entries are dated as fresh.
    static func remember(
        _ fetched: inout Fetched, plan: Plan, run: borrowing StoreRun, recordsKnown: Bool, dating: EntryDating,
        cutoff: Timestamp?, report: inout FeedReport
    ) -> [Timestamp?]? {
        let url = plan.subscription.url
        let now = dating.now
        guard run.keepsEntries else {
            record(
                Outcome.fetched(fetched).update(url: url, now: now), after: run.newFeed(url), in: run, report: &report)
            return nil
        }
        if fetched.prepared == nil { fetched.prepared = PreparedEntries(fetched.feed.entries) }
        let keys = fetched.prepared!.keys
        let isNew = recordsKnown && plan.record == nil
        // The record the run began with (read again only when the run's records were not all read).
        let before =
            isNew
            ? nil
            : plan.record ?? attempt("its record cannot be read", report: &report) { () throws(StateError) in
                try run.feed(url)
            } ?? nil
        // Read once, before the outcome is recorded: the sightings, then the unlisted entries, from one copy.
        let read = isNew ? run.newFeed(url) : run.readHistory(of: url)
        var history: FeedHistory?
        switch read.history {
        case .success(let read): history = read
        case .failure(let error):
            report.noteStateFailure(
                "its entries' history cannot be read; they are merged as without a state: \(error)", kind: error.kind)
        }
        let sightings = history?.sightings
        let restamping =
            (before?.restamping ?? false)
            || sightings.map { dating.isRestamping(fetched.feed.entries, keys: keys, sightings: $0) } ?? false
        // Recorded even when its history cannot be read: a damaged document is replaced by
        // this listing (else every later run fails the same way).
        record(
            Outcome.fetched(fetched).update(url: url, now: now, restamping: restamping), after: read, in: run,
            report: &report)
        guard let sightings else { return nil }
        // The entries stored before this fetch are those sighted: none unlisted (a feed's
        // first fetch, or the same entries again), nothing to read back.
        let listedKeys = sightings.isEmpty ? [] : Set(keys)
        report.listsEveryStoredEntry = sightings.keys.allSatisfy(listedKeys.contains)
        var unlisted: [StoredEntry] = []
        if !report.listsEveryStoredEntry, let history {
            let read = history.entries(notOlderThan: cutoff, except: listedKeys)
            unlisted = read.entries
            noteUnreadable(read.unreadable, report: &report)
        }
        return RememberedEntries.date(
            &fetched.feed.entries, keys: keys, keysAreUnique: fetched.prepared!.keysAreUnique, sightings: sightings,
            unlisted: unlisted, cutoff: cutoff, dating: dating, restamping: restamping,
            feedFirstSeen: before?.firstSeen ?? now,
            feedDate: fetched.feed.metadata.dateForUndatedEntries)
    }

    /// Records the outcome of a feed not fetched (304, failure, deferral) and
    /// gives its stored entries with their dates, each made (decoded, dated,
    /// filed in the subscription's folder) only if the timeline keeps it. A
    /// 304's update, nothing but timestamps, joins `pending`, stored with
    /// the others at the end, as does how the run reported a feed it did not ask.
    /// - Parameter readingEntries: false when none of the feed's stored
    ///   entries can get into the timeline (`StoredDates`): none is read.
    static func remember(
        notFetched outcome: Outcome, plan: Plan, run: borrowing StoreRun, dating: EntryDating, cutoff: Timestamp?,
        readingEntries: Bool = true, feedDate: Timestamp? = nil, pending: inout [FeedUpdate],
        report: inout FeedReport
    ) -> (entries: [Timeline.Deferred], dates: [Timestamp?]) {
        let url = plan.subscription.url
        if var update = outcome.update(url: url, now: dating.now) {
            update.reported = report.reportedOutcome
            if case .notModified = outcome {
                pending.append(update)
            } else {
                do {
                    try run.record(update)
                } catch {
                    report.noteNotStored("its outcome cannot be recorded: \(error)")
                }
            }
        } else if case .skipped = outcome, !plan.servedOnly, plan.record != nil,
            plan.record?.lastReport != report.reportedOutcome
        {
            // Not asked (deferred, gone): how this run reported it is all there is to store, with the 304s.
            pending.append(
                FeedUpdate(
                    url: url, outcome: .skipped, status: nil, movedTo: nil, notBefore: nil, now: dating.now,
                    reported: report.reportedOutcome))
        }
        guard readingEntries else { return ([], []) }
        var stored: [LazyStoredEntry] = []
        do {
            let read = try run.storedEntries(of: url).lazyEntries(notOlderThan: cutoff)
            stored = read.entries
            noteUnreadable(read.unreadable, report: &report)
        } catch {
            report.noteStateFailure("its stored entries cannot be read and are left out: \(error)", kind: error.kind)
            report.historyDamaged = error.kind == .damaged
            report.storedEntriesLeftOut = error.kind != .damaged
        }
        var record = plan.record
        if record == nil {
            record =
                attempt("its record cannot be read", report: &report) { () throws(StateError) in
                    try run.feed(url)
                } ?? nil
        }
        let restamping = record?.restamping ?? false
        let feedFirstSeen = record?.firstSeen
        let folder = folderCategory(of: plan.subscription)
        var entries: [Timeline.Deferred] = []
        var dates: [Timestamp?] = []
        entries.reserveCapacity(stored.count)
        dates.reserveCapacity(stored.count)
        let hidesBacklog = dating.hidesBacklog(feedDate: feedDate)
        for lazy in stored {
            let (date, _) = dating.date(
                published: lazy.published, updated: lazy.updated, sighted: lazy.sighting, restamping: restamping,
                feedFirstSeen: feedFirstSeen, feedDate: feedDate)
            let hidden = hidesBacklog && dating.isBacklog(lazy.sighting, feedFirstSeen: feedFirstSeen)
            dates.append(hidden ? nil : date)
            entries.append(
                Timeline.Deferred(id: lazy.id, link: lazy.link) {
                    var (entry, _) = dating.dated(
                        lazy.entry, sighted: lazy.sighting, restamping: restamping, feedFirstSeen: feedFirstSeen,
                        feedDate: feedDate)
                    if let folder { file(&entry, in: folder) }
                    return entry
                })
        }
        return (entries, dates)
    }

    /// The step's value, or nil with a notice (shown with and without `--verbose`).
    private static func attempt<Value>(
        _ what: String, report: inout FeedReport, _ step: () throws(StateError) -> Value
    ) -> Value? {
        do {
            return try step()
        } catch {
            report.noteStateFailure("\(what): \(error)", kind: error.kind)
            return nil
        }
    }

    /// A fetched feed's outcome, after its history was read.
    private static func record(
        _ update: FeedUpdate?, after read: consuming HistoryRead, in run: borrowing StoreRun,
        report: inout FeedReport
    ) {
        guard var update else { return }
        update.reported = report.reportedOutcome
        do {
            try run.record(update, after: read)
        } catch {
            report.noteNotStored("its fetch cannot be recorded: \(error)")
        }
    }

    /// Stored entries a read of the feed's history left out as unreadable, as a notice.
    private static func noteUnreadable(_ unreadable: Int, report: inout FeedReport) {
        if unreadable > 0 {
            report.noteStateFailure("\(unreadable) stored entries cannot be read and are left out", kind: .damaged)
        }
    }

    /// What the health report and the page show of a feed: its stored
    /// entries, its newest entry's date and its record, once every outcome
    /// of the run is stored.
    /// - Parameter record: the feed's record when the run has it as the store
    ///   holds it (nil: read from the store).
    static func collectHealth(
        of report: inout FeedReport, from run: borrowing CommittedRun, now: Timestamp, record: FeedRecord?? = nil
    ) {
        let url = report.subscription.url
        do {
            let summary = try run.summary(of: url)
            report.entriesStored = summary.count
            report.newestEntry = summary.newest.map { min($0, now) }
        } catch {
            report.noteStateFailure("its summary cannot be read: \(error)", kind: error.kind)
        }
        if let record {
            report.record = record
            return
        }
        do {
            report.record = try run.feed(url)
        } catch {
            report.noteStateFailure("its record cannot be read: \(error)", kind: error.kind)
        }
    }
}
