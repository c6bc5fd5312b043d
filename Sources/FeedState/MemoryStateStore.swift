import FeedModel

/// A state kept in memory, behind the same protocol as the SQLite store:
/// what a `--no-state` run uses (`keepingEntries: false`: feed records
/// only, so that the run costs nothing it will not read back), and, kept
/// across runs, the reference the other stores are held to (`StoreConformance`).
public final class MemoryStateStore: StateStore {
    public let keepsEntries: Bool
    package var records: [String: FeedRecord] = [:]
    /// Each feed's entries by key.
    package var stored: [String: [String: StoredEntry]] = [:]
    /// What bounds each feed's entries' dates, split when they were last
    /// written (a fetch, a prune that dropped some), as the stores on a disk
    /// or a server keep them beside the record.
    package var dates: [String: StoredDates] = [:]
    /// When retention last went over every feed (0: never).
    package var lastFullPass: Int64 = 0
    private var keptFeedID: UInt64?

    public init(keepingEntries: Bool = true) { keepsEntries = keepingEntries }

    public func mergedFeedID() throws(StateError) -> UInt64? { keptFeedID }

    public func keepMergedFeedID(_ id: UInt64) throws(StateError) -> UInt64 {
        if keptFeedID == nil { keptFeedID = id }
        return keptFeedID ?? id
    }

    public func feeds() throws(StateError) -> [String: FeedRecord] { records }

    public func feed(_ url: String) throws(StateError) -> FeedRecord? { records[url] }

    public func record(all updates: [FeedUpdate]) throws(StateError) {
        for update in updates { try record(update) }
    }

    public func record(_ update: FeedUpdate) throws(StateError) {
        guard let record = FeedRecord.after(update, from: records[update.url]) else { return }
        if case .fetched(let entries, _, _, _, _) = update.outcome, keepsEntries {
            try store(entries, feed: update.url, now: update.now)
        }
        records[update.url] = record
    }

    public func forgetValidators(of urls: [String]) throws(StateError) {
        for url in urls {
            records[url]?.etag = nil
            records[url]?.lastModified = nil
        }
    }

    public func rename(feed url: String, to newURL: String) throws(StateError) {
        guard var record = records.removeValue(forKey: url) else { return }
        record.url = newURL
        record.movedTo = nil
        records[newURL] = record
        stored[newURL] = stored.removeValue(forKey: url)
        dates[newURL] = dates.removeValue(forKey: url)
    }

    /// Upserts as the SQLite store does: a known key keeps its first-seen
    /// facts; each entry is what its codec bytes give back, as the SQLite
    /// store's would be. Bytes that do not decode are an encoder's bug, and
    /// this store is the reference the SQLite store is held to: it fails.
    private func store(_ prepared: PreparedEntries, feed: String, now: Timestamp) throws(StateError) {
        var byKey = stored[feed] ?? [:]
        for position in 0..<prepared.count {
            let key = prepared.keys[position]
            guard let entry = EntryCodec.decode(prepared.stored[position]) else {
                throw StateError(
                    path: "the memory store",
                    message: "entry \(position) of \(feed) does not decode from the bytes its codec made")
            }
            if var known = byKey[key] {
                known.entry = entry
                known.position = position
                known.lastSeen = now
                byKey[key] = known
            } else {
                byKey[key] = StoredEntry(
                    key: key, entry: entry, firstSeen: now, lastSeen: now, firstDate: entry.ownDate,
                    position: position, firstPosition: position)
            }
        }
        stored[feed] = byKey
        dates[feed] = Self.dates(of: byKey, pivot: now)
    }

    static func dates(of entries: [String: StoredEntry], pivot: Timestamp) -> StoredDates {
        StoredDates(entries.values.lazy.map { ($0.sighting, $0.entry.ownDate) }, pivot: pivot)
    }

    public func history(of url: String) throws(StateError) -> FeedHistory {
        FeedHistory(entries: Array((stored[url] ?? [:]).values))
    }

    public func storedDates() throws(StateError) -> [String: StoredDates] { dates }

    public func feeds(_ urls: [String]) throws(StateError) -> [String: (record: FeedRecord, dates: StoredDates?)] {
        var result: [String: (record: FeedRecord, dates: StoredDates?)] = [:]
        for url in urls { if let record = records[url] { result[url] = (record, dates[url]) } }
        return result
    }

    public func prune(feeds: [String]?, keepDays: Int, keepPerFeed: Int, now: Timestamp) throws(StateError) {
        let full = RetentionSchedule.isFullPass(feeds: feeds, lastFull: lastFullPass, now: now.secondsSince1970)
        let rule = RetentionRule(keepDays: keepDays, keepPerFeed: keepPerFeed, now: now)
        for feed in full ? Array(records.keys) : feeds ?? [] {
            guard let entries = stored[feed].map({ Array($0.values) }), let kept = rule.kept(entries.map(\.place))
            else { continue }
            let keptEntries = Dictionary(uniqueKeysWithValues: kept.map { (entries[$0].key, entries[$0]) })
            stored[feed] = keptEntries
            dates[feed] = Self.dates(of: keptEntries, pivot: now)
        }
        if RetentionSchedule.notesPass(full: full, lastFull: lastFullPass) { lastFullPass = now.secondsSince1970 }
    }
}
