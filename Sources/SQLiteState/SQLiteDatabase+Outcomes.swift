import FeedModel
import FeedState
import StateDocument

/// What storing one feed's outcome does to a state file, on whichever
/// connection stores it: the writer's (`StateWriter`) for a fetched feed,
/// the store's own for the run's not-modified feeds, stored together at its
/// end. The record's change is `FeedRecord.after`'s: SQL only stores it.
extension SQLiteDatabase {
    /// Stores one outcome: the feed's row read, `FeedRecord.after` applied,
    /// and what it changed written as plain values. The caller holds the
    /// transaction, so that the row read is the row written.
    func apply(_ update: FeedUpdate) throws(StateError) {
        _ = try apply(update, to: recordRow(of: update.url))
    }

    /// `apply(_:)` to a row read already in this transaction (nil: the state has none).
    /// - Returns: the row as it is after (the next outcome of the same feed starts there).
    func apply(_ update: FeedUpdate, to row: RecordRow?) throws(StateError) -> RecordRow? {
        guard let record = FeedRecord.after(update, from: row?.record) else { return row }
        let id: Int64
        if let row {
            try write(record, changedBy: update.outcome.kind, row: row.id)
            id = row.id
        } else {
            id = try insert(record)
        }
        if case .fetched(let entries, _, _, _, _) = update.outcome {
            try storeEntries(entries, feed: id, url: update.url, now: update.now.secondsSince1970)
        }
        return RecordRow(id: id, record: record)
    }

    /// Several outcomes, in order, their feeds' rows read `rowsPerQuery` to a
    /// query; the caller holds the transaction.
    func apply(all updates: [FeedUpdate]) throws(StateError) {
        var rows = try recordRows(of: updates.map(\.url))
        for update in updates { rows[update.url] = try apply(update, to: rows[update.url]) }
    }

    /// Upserts the entries a feed lists now (`FeedEntries.upsert`), as
    /// prepared beside the parse (`PreparedEntries(entries)`, never `.notKept`). A document that cannot be read is replaced: its
    /// entries were lost already (reading them said so).
    private func storeEntries(_ entries: PreparedEntries, feed: Int64, url: String, now: Int64) throws(StateError) {
        var document = try storedDocument(of: url) ?? FeedEntries()
        document.upsert(entries, now: now)
        try store(document, feed: feed, now: now)
    }

    /// Writes a feed's document and, beside its record, what bounds its
    /// entries' dates (`StoredDates`, split at `now`): every document is
    /// written here, so the two never disagree.
    func store(_ document: FeedEntries, feed: Int64, now: Int64) throws(StateError) {
        try store(document: document.document, dates: document.dates(pivot: now), feed: feed)
    }

    /// `store(_:feed:now:)` for a document already written out. (Writing the
    /// document clears the facts, by schema 6's triggers; they are set after it.)
    func store(document: [UInt8], dates: StoredDates, feed: Int64) throws(StateError) {
        try prepare("INSERT OR REPLACE INTO feed_entries(feed, document) VALUES (?, ?)")
            .run([.integer(feed), .blob(document)])
        try prepare("UPDATE feeds SET entry_dates = ? WHERE id = ?").run([.blob(dates.encoded), .integer(feed)])
    }

    /// A feed's document; an empty one when it has none.
    func document(of url: String) throws(StateError) -> FeedEntries {
        guard let document = try storedDocument(of: url) else { throw damagedDocument(of: url) }
        return document
    }

    func damagedDocument(of url: String) -> StateError {
        StateError(path: path, message: "the stored entries of \(url) are damaged", kind: .damaged)
    }

    /// A feed's document (an empty one when it has none); nil when it is damaged.
    /// Throws only when the database cannot be read: then nothing may replace the document.
    func storedDocument(of url: String) throws(StateError) -> FeedEntries? {
        var bytes: [UInt8]?
        try prepare(
            "SELECT document FROM feed_entries WHERE feed = (SELECT id FROM feeds WHERE url = ?)"
        ).query([.text(url)]) { bytes = $0.blob(0) }
        guard let bytes else { return FeedEntries() }
        return FeedEntries(document: bytes)
    }
}
