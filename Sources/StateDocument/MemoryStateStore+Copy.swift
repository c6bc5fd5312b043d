import FeedModel
import FeedState

/// The memory store's whole content out of and into another store
/// (`CopyableStateStore`): the reference the other stores' copies are held to.
/// Beside `FeedEntries` rather than in `FeedState`: a snapshot carries its
/// entries as a compressed document (`EntryCompression`).
extension MemoryStateStore: CopyableStateStore {
    /// Each feed's entries as the document a store on a disk keeps (`FeedEntries`).
    public func exportFeeds(_ body: (FeedSnapshot) throws(StateError) -> Void) throws(StateError) {
        for url in records.keys.sorted() {
            guard let record = records[url] else { continue }
            let document = stored[url].map { Self.document(of: $0.values.sorted(by: StoredEntry.inStoreOrder)) }
            try body(FeedSnapshot(record: record, document: document, dates: dates[url]))
        }
    }

    /// All or nothing, as one transaction would: a feed held already, or a
    /// document that does not read back whole, adds none of them.
    public func importFeeds(_ feeds: [FeedSnapshot]) throws(StateError) {
        var adding: [(record: FeedRecord, entries: [StoredEntry]?, dates: StoredDates?)] = []
        for feed in feeds {
            let url = feed.record.url
            guard records[url] == nil, !adding.contains(where: { $0.record.url == url }) else {
                throw StateError(path: "the memory store", message: "\(url) is held already")
            }
            var entries: [StoredEntry]?
            if let bytes = feed.document {
                var unreadable = 0
                let document = FeedEntries(document: bytes)
                entries = document?.entries(notOlderThan: nil, except: [], unreadable: &unreadable)
                guard entries != nil, unreadable == 0 else {
                    throw StateError(
                        path: "the memory store", message: "the stored entries of \(url) are damaged", kind: .damaged)
                }
            }
            adding.append((feed.record, entries, feed.dates))
        }
        for (record, entries, dates) in adding {
            records[record.url] = record
            self.dates[record.url] = dates
            if let entries { stored[record.url] = Dictionary(entries.map { ($0.key, $0) }) { _, last in last } }
        }
    }

    public func lastFullPrune() throws(StateError) -> Int64 { lastFullPass }

    public func setLastFullPrune(_ time: Int64) throws(StateError) { lastFullPass = time }

    /// The entries as one document, their codec bytes as the other stores keep them.
    static func document(of entries: [StoredEntry]) -> [UInt8] {
        FeedEntries(
            rows: entries.map { stored in
                FeedEntries.Row(
                    key: stored.key, firstSeen: stored.firstSeen.secondsSince1970,
                    lastSeen: stored.lastSeen.secondsSince1970, firstDate: stored.firstDate?.secondsSince1970,
                    entryDate: stored.entry.ownDate?.secondsSince1970, latestDate: stored.latestDate.secondsSince1970,
                    position: stored.position, firstPosition: stored.firstPosition,
                    stored: EntryCodec.encode(stored.entry)[...])
            }
        ).document
    }
}
