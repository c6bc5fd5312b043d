import FeedModel
import FeedState
import StateDocument

/// What storing one feed's outcome does to a state file, on whichever
/// connection stores it: the writer's (`StateWriter`) for a fetched feed,
/// the store's own for the run's not-modified feeds, stored together at its end.
extension SQLiteDatabase {
    /// One outcome's statements; the caller holds the transaction.
    func apply(_ update: FeedUpdate) throws(StateError) {
        let now = update.now.secondsSince1970
        if case .skipped = update.outcome {
            try prepare("UPDATE feeds SET last_report = COALESCE(?, last_report) WHERE url = ?")
                .run([.text(update.reported?.encoded), .text(update.url)])
            return
        }
        var feed: Int64 = 0
        try prepare(
            """
            INSERT INTO feeds(url, first_seen, last_fetch, last_status, not_before, moved_to, last_report)
            VALUES (?1, ?2, ?2, ?3, ?4, ?5, ?6)
            ON CONFLICT(url) DO UPDATE SET last_fetch = excluded.last_fetch, last_status = excluded.last_status,
                not_before = excluded.not_before, moved_to = COALESCE(excluded.moved_to, moved_to),
                last_report = COALESCE(excluded.last_report, last_report)
            RETURNING id
            """
        ).query([
            .text(update.url), .integer(now), .integer(update.status.map(Int64.init)),
            .integer(update.notBefore?.secondsSince1970), .text(update.movedTo), .text(update.reported?.encoded),
        ]) { row throws(StateError) in feed = try row.integer(0, notNull: "feeds.id") }
        switch update.outcome {
        case .fetched(let entries, let etag, let lastModified, let metadata, let restamping):
            try storeEntries(entries, feed: feed, url: update.url, now: now)
            try prepare(
                """
                UPDATE feeds SET etag = ?, last_modified = ?, last_success = ?, consecutive_failures = 0,
                    failing_since = NULL, last_error = NULL, gone = 0, title = COALESCE(?, title), link = COALESCE(?, link),
                    metadata = ?, restamping = ? WHERE id = ?
                """
            ).run([
                .text(etag), .text(lastModified), .integer(now), .text(metadata.title?.value), .text(metadata.link),
                .blob(FeedMetadataCodec.encode(metadata)), .integer(restamping ? 1 : 0), .integer(feed),
            ])
        case .notModified(let etag, let lastModified):
            try prepare(
                """
                UPDATE feeds SET last_success = ?, consecutive_failures = 0, failing_since = NULL, last_error = NULL,
                    etag = COALESCE(?, etag), last_modified = COALESCE(?, last_modified)
                WHERE id = ?
                """
            ).run([.integer(now), .text(etag), .text(lastModified), .integer(feed)])
        case .skipped:
            break
        case .failed(let message, let gone):
            try prepare(
                """
                UPDATE feeds SET consecutive_failures = consecutive_failures + 1, last_error = ?,
                    gone = MAX(gone, ?), failing_since = COALESCE(failing_since, ?) WHERE id = ?
                """
            ).run([.text(message), .integer(gone ? 1 : 0), .integer(now), .integer(feed)])
        }
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
