import FeedModel
import Foundation

/// The state in one SQLite file: WAL journal, a busy timeout, one writer
/// (the lock), versioned schema migrations.
public final class SQLiteStateStore: StateStore {
    private let database: SQLiteDatabase

    /// Schema versions, applied in order; `PRAGMA user_version` says how far a file got.
    /// Small columns come before the entry blob: SQLite reads a row's
    /// columns in order, so a query that filters on dates never touches
    /// the blob's overflow pages.
    static let migrations: [String] = [
        """
        CREATE TABLE feeds(
            url TEXT PRIMARY KEY,
            moved_to TEXT, etag TEXT, last_modified TEXT,
            first_seen INTEGER NOT NULL, last_fetch INTEGER, last_success INTEGER, last_status INTEGER,
            consecutive_failures INTEGER NOT NULL DEFAULT 0, last_error TEXT, not_before INTEGER,
            gone INTEGER NOT NULL DEFAULT 0, title TEXT, link TEXT, restamping INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE entries(
            feed_url TEXT NOT NULL REFERENCES feeds(url) ON DELETE CASCADE,
            key TEXT NOT NULL, content_hash INTEGER NOT NULL, position INTEGER NOT NULL,
            first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL, first_date INTEGER, entry_date INTEGER,
            latest_date INTEGER NOT NULL, first_position INTEGER NOT NULL,
            entry BLOB NOT NULL,
            PRIMARY KEY(feed_url, key)) WITHOUT ROWID;
        CREATE INDEX entries_by_date ON entries(feed_url, latest_date);
        CREATE INDEX entries_by_sight ON entries(feed_url, last_seen);
        CREATE TABLE meta(name TEXT PRIMARY KEY, value INTEGER);
        """,
        // 2: the feed's whole metadata (`FeedMetadataCodec`), so that a feed
        // served from the state gives the same source as its last fetch.
        // Validators stored before it are dropped: each feed is fetched whole
        // once more (not answered 304), which fills its metadata in.
        """
        ALTER TABLE feeds ADD COLUMN metadata BLOB;
        UPDATE feeds SET etag = NULL, last_modified = NULL;
        """,
        // 3: when a failing feed began to fail (the page says "failing since").
        "ALTER TABLE feeds ADD COLUMN failing_since INTEGER;",
        // 4: compact entries. A feed's entries are one row, a document
        // (`FeedEntries`), each entry in it compressed (`EntryCompression`):
        // one row per entry, with the feed's URL in every row and two indexes,
        // made storing most of a first run's cost and the file 2 KB per entry.
        // Feeds get a number for the document to name. `migrateEntriesToDocuments`
        // fills the documents between this and `schema4Cleanup`, in the same
        // transaction; a file that had entries is then vacuumed once.
        """
        CREATE TABLE feeds_v4(
            id INTEGER PRIMARY KEY,
            url TEXT NOT NULL UNIQUE,
            moved_to TEXT, etag TEXT, last_modified TEXT,
            first_seen INTEGER NOT NULL, last_fetch INTEGER, last_success INTEGER, last_status INTEGER,
            consecutive_failures INTEGER NOT NULL DEFAULT 0, last_error TEXT, not_before INTEGER,
            gone INTEGER NOT NULL DEFAULT 0, title TEXT, link TEXT, restamping INTEGER NOT NULL DEFAULT 0,
            metadata BLOB, failing_since INTEGER);
        INSERT INTO feeds_v4(url, moved_to, etag, last_modified, first_seen, last_fetch, last_success, last_status,
            consecutive_failures, last_error, not_before, gone, title, link, restamping, metadata, failing_since)
        SELECT url, moved_to, etag, last_modified, first_seen, last_fetch, last_success, last_status,
            consecutive_failures, last_error, not_before, gone, title, link, restamping, metadata, failing_since
        FROM feeds ORDER BY url;
        CREATE TABLE feed_entries(
            feed INTEGER PRIMARY KEY REFERENCES feeds_v4(id) ON DELETE CASCADE,
            document BLOB NOT NULL);
        """,
    ]

    static let schema4Cleanup = """
        DROP TABLE entries;
        DROP TABLE feeds;
        ALTER TABLE feeds_v4 RENAME TO feeds;
        """


    public init(path: String) throws(StateError) {
        database = try SQLiteDatabase(path: path)
        try migrate()
    }

    /// The open batch is kept: each outcome in it is whole.
    deinit { try? commit() }

    /// Brings the file to the newest schema, one version per transaction.
    private func migrate() throws(StateError) {
        let target = Self.migrations.count
        var version = 0
        try database.prepare("PRAGMA user_version").query { version = Int($0.integer(0) ?? 0) }
        guard version < target else { return }
        // Schema 4 rebuilds both tables; the foreign-key setting cannot change inside a transaction.
        try database.execute("PRAGMA foreign_keys=OFF")
        for (index, sql) in Self.migrations.enumerated() where index >= version {
            try database.transaction { () throws(StateError) in
                try database.execute(sql)
                if index + 1 == 4 {
                    try migrateEntriesToDocuments()
                    try database.execute(Self.schema4Cleanup)
                }
                try database.execute("PRAGMA user_version = \(index + 1)")
            }
        }
        try database.execute("PRAGMA foreign_keys=ON")
        // A file upgraded to 4 has its old pages free: give them back once, on 8 KB pages
        // (`SQLiteDatabase`), which a file can take only outside WAL mode.
        if version > 0 && version < 4 && target >= 4 {
            try database.execute("PRAGMA journal_mode=DELETE")
            try database.execute("PRAGMA page_size=8192")
            try database.execute("VACUUM")
            try database.execute("PRAGMA journal_mode=WAL")
        }
    }

    /// Schema 4's middle: each feed's entry rows become its document, each
    /// entry compressed, one feed at a time (memory stays that of one feed).
    /// An entry that cannot be decoded is kept as it was: reading it reports it.
    private func migrateEntriesToDocuments() throws(StateError) {
        var feeds: [(id: Int64, url: String)] = []
        try database.prepare("SELECT id, url FROM feeds_v4").query { feeds.append(($0.integer(0) ?? 0, $0.text(1) ?? "")) }
        let select = try database.prepare(
            """
            SELECT key, first_seen, last_seen, first_date, entry_date, latest_date, position, first_position, entry
            FROM entries WHERE feed_url = ?
            """)
        let insert = try database.prepare("INSERT INTO feed_entries(feed, document) VALUES (?, ?)")
        for (id, url) in feeds {
            var rows: [FeedEntries.Row] = []
            try select.query([.text(url)]) { row in
                let plain = row.blob(8)
                rows.append(
                    FeedEntries.Row(
                        key: row.text(0) ?? "", firstSeen: row.integer(1) ?? 0, lastSeen: row.integer(2) ?? 0,
                        firstDate: row.integer(3), entryDate: row.integer(4), latestDate: row.integer(5) ?? 0,
                        position: Int(row.integer(6) ?? 0), firstPosition: Int(row.integer(7) ?? 0),
                        stored: (EntryCodec.decode(plain).map(EntryCompression.stored) ?? plain)[...]))
            }
            guard !rows.isEmpty else { continue }
            try insert.run([.integer(id), .blob(FeedEntries(rows: rows).document)])
        }
    }

    public func feeds() throws(StateError) -> [String: FeedRecord] {
        var result: [String: FeedRecord] = [:]
        try database.prepare(Self.selectFeeds).query { row in
            let record = Self.feedRecord(row)
            result[record.url] = record
        }
        return result
    }

    public func feed(_ url: String) throws(StateError) -> FeedRecord? {
        var result: FeedRecord?
        try database.prepare(Self.selectFeeds + " WHERE url = ?").query([.text(url)]) { result = Self.feedRecord($0) }
        return result
    }

    /// Each outcome in a savepoint of the open batch: a feed's entries and
    /// validators commit together, as every feed's did in its own transaction, at a
    /// fraction of the cost (a page several feeds touch is written once per batch, not
    /// once per feed). An outcome that fails is undone alone; the others stay.
    public func record(_ update: FeedUpdate) throws(StateError) {
        if batchSize == 0 { try database.execute("BEGIN IMMEDIATE") }
        batchSize += 1
        try database.execute("SAVEPOINT outcome")
        do {
            try apply(update)
        } catch {
            if database.inTransaction {  // some errors end the whole transaction (and the batch)
                try? database.execute("ROLLBACK TO outcome")
                try? database.execute("RELEASE outcome")
            } else {
                batchSize = 0
            }
            throw error
        }
        try database.execute("RELEASE outcome")
        if batchSize >= Self.batchLimit { try commit() }
    }

    /// Outcomes per batch: a killed run loses at most these (their feeds are
    /// fetched whole again next time, having no validators stored).
    static let batchLimit = 64
    /// Outcomes recorded in the open batch (0: no batch open).
    private var batchSize = 0

    public func commit() throws(StateError) {
        guard batchSize > 0 else { return }
        batchSize = 0
        do {
            try database.execute("COMMIT")
        } catch {
            if database.inTransaction { try? database.execute("ROLLBACK") }
            throw error
        }
    }

    public func record(all updates: [FeedUpdate]) throws(StateError) {
        try commit()
        guard !updates.isEmpty else { return }
        try database.transaction { () throws(StateError) in
            for update in updates { try apply(update) }
        }
    }

    /// One outcome's statements; the caller holds the transaction.
    private func apply(_ update: FeedUpdate) throws(StateError) {
        let now = update.now.secondsSince1970
        var feed: Int64 = 0
        try database.prepare(
            """
            INSERT INTO feeds(url, first_seen, last_fetch, last_status, not_before, moved_to)
            VALUES (?1, ?2, ?2, ?3, ?4, ?5)
            ON CONFLICT(url) DO UPDATE SET last_fetch = excluded.last_fetch, last_status = excluded.last_status,
                not_before = excluded.not_before, moved_to = COALESCE(excluded.moved_to, moved_to)
            RETURNING id
            """
        ).query([
            .text(update.url), .integer(now), .integer(update.status.map(Int64.init)),
            .integer(update.notBefore?.secondsSince1970), .text(update.movedTo),
        ]) { feed = $0.integer(0) ?? 0 }
        switch update.outcome {
        case .fetched(let entries, let prepared, let etag, let lastModified, let metadata, let restamping):
            try storeEntries(entries, prepared: prepared, feed: feed, url: update.url, now: now)
            try database.prepare(
                """
                UPDATE feeds SET etag = ?, last_modified = ?, last_success = ?, consecutive_failures = 0,
                    failing_since = NULL, last_error = NULL, gone = 0, title = COALESCE(?, title), link = COALESCE(?, link),
                    metadata = ?, restamping = ? WHERE id = ?
                """
            ).run([
                .text(etag), .text(lastModified), .integer(now), .text(metadata.title?.value), .text(metadata.link),
                .blob(FeedMetadataCodec.encode(metadata)), .integer(restamping ? 1 : 0), .integer(feed),
            ])
        case .notModified:
            try database.prepare(
                """
                UPDATE feeds SET last_success = ?, consecutive_failures = 0, failing_since = NULL, last_error = NULL
                WHERE id = ?
                """
            ).run([.integer(now), .integer(feed)])
        case .skipped:
            break
        case .failed(let message, let gone):
            try database.prepare(
                """
                UPDATE feeds SET consecutive_failures = consecutive_failures + 1, last_error = ?,
                    gone = MAX(gone, ?), failing_since = COALESCE(failing_since, ?) WHERE id = ?
                """
            ).run([.text(message), .integer(gone ? 1 : 0), .integer(now), .integer(feed)])
        }
    }

    /// Upserts the entries a feed lists now (`FeedEntries.upsert`), in the
    /// stored forms prepared beside the parse (`PreparedEntries(entries)`,
    /// never `.notKept`). A document that cannot be read is replaced: its
    /// entries were lost already (reading them said so).
    private func storeEntries(_ entries: [Entry], prepared: PreparedEntries, feed: Int64, url: String, now: Int64)
        throws(StateError)
    {
        var document = (try? documentOf(url)) ?? FeedEntries()
        cached = nil
        document.upsert(entries, prepared: prepared, now: now)
        try database.prepare("INSERT OR REPLACE INTO feed_entries(feed, document) VALUES (?, ?)")
            .run([.integer(feed), .blob(document.document)])
        cached = (url, document)
    }

    /// The last document read or written, by feed URL: a fetched feed's is
    /// read for its sightings, then updated, then read for its unlisted entries.
    private var cached: (url: String, document: FeedEntries)?

    /// A feed's document; an empty one when it has none.
    private func documentOf(_ url: String) throws(StateError) -> FeedEntries {
        if let cached, cached.url == url { return cached.document }
        var bytes: [UInt8]?
        try database.prepare(
            "SELECT document FROM feed_entries WHERE feed = (SELECT id FROM feeds WHERE url = ?)"
        ).query([.text(url)]) { bytes = $0.blob(0) }
        guard let bytes else { return FeedEntries() }
        guard let document = FeedEntries(document: bytes) else {
            throw StateError(path: database.path, message: "the stored entries of \(url) are damaged")
        }
        cached = (url, document)
        return document
    }

    public var keepsEntries: Bool { true }

    public func sightings(of url: String) throws(StateError) -> [String: EntrySighting] {
        try documentOf(url).sightings
    }

    public func entries(of url: String, notOlderThan cutoff: Timestamp?, except: Set<String>) throws(StateError)
        -> [StoredEntry]
    {
        var unreadable = 0
        let result = try documentOf(url).entries(
            notOlderThan: cutoff, except: except, unreadable: &unreadable)
        if unreadable > 0 { unreadableCounts[url, default: 0] += unreadable }
        return result
    }

    /// Rows `entries(of:)` skipped, by feed, until taken.
    private var unreadableCounts: [String: Int] = [:]

    public func takeUnreadableCount(of url: String) -> Int {
        unreadableCounts.removeValue(forKey: url) ?? 0
    }

    /// The entries follow: they name their feed by its number.
    public func rename(feed url: String, to newURL: String) throws(StateError) {
        try commit()
        cached = nil
        try database.transaction { () throws(StateError) in
            try database.prepare("UPDATE feeds SET url = ?, moved_to = NULL WHERE url = ?")
                .run([.text(newURL), .text(url)])
        }
    }

    public func summary(of url: String) throws(StateError) -> (count: Int, newest: Timestamp?) {
        try documentOf(url).summary
    }

    public func prune(feeds: [String]?, keepDays: Int, keepPerFeed: Int, now: Timestamp) throws(StateError) {
        try commit()
        cached = nil
        var lastFull: Int64 = 0
        try database.prepare("SELECT value FROM meta WHERE name = 'last_full_prune'").query {
            lastFull = $0.integer(0) ?? 0
        }
        // The whole state once a day (age-based retention); otherwise only the
        // feeds whose listing changed in this run.
        // A new state has nothing old to drop: its first full pass is a day away.
        let full = feeds == nil || (lastFull > 0 && now.secondsSince1970 - lastFull >= 86_400)
        let cutoff = now.secondsSince1970 - Int64(keepDays) * 86_400
        try database.transaction { () throws(StateError) in
            let select = try database.prepare(
                full
                    ? "SELECT feed, document FROM feed_entries"
                    : "SELECT feed, document FROM feed_entries WHERE feed = (SELECT id FROM feeds WHERE url = ?)")
            var pruned: [(feed: Int64, document: [UInt8])] = []
            func prune(_ row: Statement) {
                // A damaged document is left as it is: reading it reports it.
                guard var document = FeedEntries(document: row.blob(1)),
                    document.prune(cutoff: cutoff, keepPerFeed: keepPerFeed)
                else { return }
                pruned.append((row.integer(0) ?? 0, document.document))
            }
            if full {
                try select.query(row: prune)
            } else {
                for url in feeds ?? [] { try select.query([.text(url)], row: prune) }
            }
            let update = try database.prepare("UPDATE feed_entries SET document = ? WHERE feed = ?")
            for (feed, document) in pruned { try update.run([.blob(document), .integer(feed)]) }
            if full || lastFull == 0 {
                try database.prepare("INSERT OR REPLACE INTO meta(name, value) VALUES ('last_full_prune', ?)")
                    .run([.integer(now.secondsSince1970)])
            }
        }
    }
}

func stamp(_ seconds: Int64) -> Timestamp { Timestamp(secondsSince1970: seconds) }
