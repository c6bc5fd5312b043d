import FeedModel
import FeedState
import Foundation
import StateDocument

/// The state in one SQLite file: WAL journal, a busy timeout, one run at a
/// time (the lock), versioned schema migrations. Reads go through this
/// store's connection; outcomes are stored by `StateWriter` on its own.
public final class SQLiteStateStore: StateStore {
    let database: SQLiteDatabase

    /// Schema versions, applied in order; `PRAGMA user_version` says how far a file got.
    /// (Schemas 1-3 stay as they were written: a file of any of them is brought up from there.)
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
        // 5: each document compressed whole (`FeedEntries` version 2), not
        // each entry in it alone: 60% of the bytes, and one compression per
        // feed. `recompressDocuments` rewrites every document; a file that
        // had documents is then vacuumed once.
        "-- the documents are rewritten by recompressDocuments",
        // 6: what bounds each feed's entries' dates (`StoredDates`), beside
        // its record, so that a run need not read the entries of a feed that
        // cannot get into its timeline. NULL: not known (the entries are
        // read). `summarizeDocuments` fills it for every stored document.
        // Writing a document forgets its feed's facts (the triggers), and
        // this code then stores the new ones (`SQLiteDatabase.store`): an
        // older feedmerge, which knows nothing of them, cannot leave facts
        // that no longer hold.
        """
        ALTER TABLE feeds ADD COLUMN entry_dates BLOB;
        CREATE TRIGGER feed_entries_inserted AFTER INSERT ON feed_entries
        BEGIN UPDATE feeds SET entry_dates = NULL WHERE id = NEW.feed; END;
        CREATE TRIGGER feed_entries_updated AFTER UPDATE OF document ON feed_entries
        BEGIN UPDATE feeds SET entry_dates = NULL WHERE id = NEW.feed; END;
        """,
        // 7: how the run that stored a feed's outcome reported it (`ReportedOutcome`), for
        // `feedmerge render`. NULL: not known yet (the next outcome stored says it).
        "ALTER TABLE feeds ADD COLUMN last_report TEXT;",
    ]

    static let schema4Cleanup = """
        DROP TABLE entries;
        DROP TABLE feeds;
        ALTER TABLE feeds_v4 RENAME TO feeds;
        """

    /// Stores outcomes on a connection and a thread of its own.
    let writer: StateWriter

    public init(path: String) throws(StateError) {
        database = try SQLiteDatabase(path: path)
        try Self.migrate(database)
        writer = try StateWriter(path: path)
    }

    /// The open batch is kept: each outcome in it is whole. A run commits
    /// before it ends; a store dropped without that (a run that stopped
    /// early) says on standard error what could not be kept, since no run is
    /// left to report it: the next run fetches those feeds whole.
    deinit {
        do {
            let unstored = try writer.commit()
            for (url, error) in unstored.sorted(by: { $0.key < $1.key }) {
                Self.say("feedmerge: state: \(url) could not be stored (\(error)); the next run fetches it whole")
            }
        } catch {
            Self.say(
                "feedmerge: state: the last outcomes could not be stored (\(error)); the next run fetches those feeds whole"
            )
        }
    }

    private static func say(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Brings the file to the newest schema, one version per transaction.
    private static func migrate(_ database: SQLiteDatabase) throws(StateError) {
        let target = migrations.count
        var version = 0
        try database.prepare("PRAGMA user_version").query { row throws(StateError) in
            version = Int(try row.integer(0, notNull: "user_version"))
        }
        // A newer feedmerge's file: this one would misread it, and its writes could damage it.
        guard version <= target else {
            throw StateError(
                path: database.path,
                message: "its schema is version \(version), newer than this feedmerge's (\(target)): "
                    + "run the feedmerge that wrote it, or a newer one")
        }
        guard version < target else { return }
        // Schema 4 rebuilds both tables; the foreign-key setting cannot change inside a transaction.
        try database.execute("PRAGMA foreign_keys=OFF")
        for (index, sql) in migrations.enumerated() where index >= version {
            try database.transaction { () throws(StateError) in
                try database.execute(sql)
                if index + 1 == 4 {
                    try migrateEntriesToDocuments(database)
                    try database.execute(schema4Cleanup)
                }
                if index + 1 == 5 { try recompressDocuments(database) }
                if index + 1 == 6 { try summarizeDocuments(database) }
                try database.execute("PRAGMA user_version = \(index + 1)")
            }
        }
        try database.execute("PRAGMA foreign_keys=ON")
        // A file upgraded to 4 or 5 has its old pages free: give them back once, on 8 KB pages
        // (`SQLiteDatabase`), which a file can take only outside WAL mode.
        if version > 0 && version < 5 && target >= 5 {
            try database.execute("PRAGMA journal_mode=DELETE")
            try database.execute("PRAGMA page_size=8192")
            try database.execute("VACUUM")
            try database.execute("PRAGMA journal_mode=WAL")
        }
    }

    /// Schema 4's middle: each feed's entry rows become its document, one
    /// feed at a time (memory stays that of one feed). An entry that cannot
    /// be decoded is kept as it was: reading it reports it.
    private static func migrateEntriesToDocuments(_ database: SQLiteDatabase) throws(StateError) {
        var feeds: [(id: Int64, url: String)] = []
        try database.prepare("SELECT id, url FROM feeds_v4").query { row throws(StateError) in
            feeds.append((try row.integer(0, notNull: "feeds.id"), try row.text(1, notNull: "feeds.url")))
        }
        let select = try database.prepare(
            """
            SELECT key, first_seen, last_seen, first_date, entry_date, latest_date, position, first_position, entry
            FROM entries WHERE feed_url = ?
            """)
        let insert = try database.prepare("INSERT INTO feed_entries(feed, document) VALUES (?, ?)")
        for (id, url) in feeds {
            var rows: [FeedEntries.Row] = []
            try select.query([.text(url)]) { row throws(StateError) in
                let plain = row.blob(8)
                rows.append(
                    FeedEntries.Row(
                        key: try row.text(0, notNull: "entries.key"),
                        firstSeen: try row.integer(1, notNull: "entries.first_seen"),
                        lastSeen: try row.integer(2, notNull: "entries.last_seen"),
                        firstDate: row.integer(3), entryDate: row.integer(4),
                        latestDate: try row.integer(5, notNull: "entries.latest_date"),
                        position: Int(try row.integer(6, notNull: "entries.position")),
                        firstPosition: Int(try row.integer(7, notNull: "entries.first_position")),
                        stored: plain[...]))
            }
            guard !rows.isEmpty else { continue }
            try insert.run([.integer(id), .blob(FeedEntries(rows: rows).document)])
        }
    }

    /// Schema 5: every version 1 document written again as version 2, one
    /// feed at a time. A damaged document is left as it is: reading it reports it.
    private static func recompressDocuments(_ database: SQLiteDatabase) throws(StateError) {
        let update = try database.prepare("UPDATE feed_entries SET document = ? WHERE feed = ?")
        try eachDocument(in: database) { feed, document throws(StateError) in
            try update.run([.blob(document.document), .integer(feed)])
        }
    }

    /// Every stored document that reads, one feed at a time (memory stays
    /// that of one feed), with its feed's number; a damaged one is skipped.
    private static func eachDocument(
        in database: SQLiteDatabase, _ body: (Int64, FeedEntries) throws(StateError) -> Void
    ) throws(StateError) {
        var feeds: [Int64] = []
        try database.prepare("SELECT feed FROM feed_entries").query { row throws(StateError) in
            feeds.append(try row.integer(0, notNull: "feed_entries.feed"))
        }
        let select = try database.prepare("SELECT document FROM feed_entries WHERE feed = ?")
        for feed in feeds {
            var document: FeedEntries?
            try select.query([.integer(feed)]) { document = FeedEntries(document: $0.blob(0)) }
            if let document { try body(feed, document) }
        }
    }

    /// Schema 6: each document's `StoredDates`, split at the time of the
    /// upgrade, one feed at a time. A damaged document gets none: its
    /// entries are read (and it is reported) as before.
    private static func summarizeDocuments(_ database: SQLiteDatabase) throws(StateError) {
        let update = try database.prepare("UPDATE feeds SET entry_dates = ? WHERE id = ?")
        let pivot = Int64(time(nil))
        try eachDocument(in: database) { feed, document throws(StateError) in
            try update.run([.blob(document.dates(pivot: pivot).encoded), .integer(feed)])
        }
    }

    public func storedDates() throws(StateError) -> [String: StoredDates] {
        var result: [String: StoredDates] = [:]
        try database.prepare("SELECT url, entry_dates FROM feeds WHERE entry_dates IS NOT NULL").query {
            row throws(StateError) in
            if let dates = StoredDates(encoded: row.blob(1)) { result[try row.text(0, notNull: "feeds.url")] = dates }
        }
        return result
    }

    public func feeds() throws(StateError) -> [String: FeedRecord] {
        var result: [String: FeedRecord] = [:]
        try database.prepare(Self.selectFeeds).query { row throws(StateError) in
            let record = try Self.feedRecord(row)
            result[record.url] = record
        }
        return result
    }

    public func feed(_ url: String) throws(StateError) -> FeedRecord? {
        var result: FeedRecord?
        try database.prepare(Self.selectFeeds + " WHERE url = ?").query([.text(url)]) { row throws(StateError) in
            result = try Self.feedRecord(row)
        }
        return result
    }

    /// Each feed's row read by its URL, one prepared statement for all.
    public func feeds(_ urls: [String]) throws(StateError) -> [String: (record: FeedRecord, dates: StoredDates?)] {
        var result: [String: (record: FeedRecord, dates: StoredDates?)] = [:]
        let statement = try database.prepare(
            Self.selectFeeds.replacingOccurrences(of: " FROM feeds", with: ", entry_dates FROM feeds")
                + " WHERE url = ?")
        for url in urls {
            try statement.query([.text(url)]) { row throws(StateError) in
                let dates = row.isNull(18) ? nil : StoredDates(encoded: row.blob(18))
                result[url] = (try Self.feedRecord(row), dates)
            }
        }
        return result
    }

    /// Hands the outcome to the writer (`StateWriter`): it is stored on the
    /// writer's thread, beside the run, and is durable at the next `commit`.
    public func record(_ update: FeedUpdate) throws(StateError) {
        writer.submit(update)
    }

    /// The journal's pages copied into the database beside the run (a
    /// passive checkpoint, `Checkpointer`), where closing the last
    /// connection would have copied them after the outputs were written.
    public func finish() { writer.checkpoint() }

    public func commit() throws(StateError) -> [String: StateError] {
        try writer.commit()
    }

    public func record(all updates: [FeedUpdate]) throws(StateError) {
        try writer.flush()
        guard !updates.isEmpty else { return }
        try database.transaction { () throws(StateError) in try database.apply(all: updates) }
    }

    public func forgetValidators(of urls: [String]) throws(StateError) {
        try writer.flush()
        guard !urls.isEmpty else { return }
        try database.transaction { () throws(StateError) in
            for url in urls {
                try database.prepare("UPDATE feeds SET etag = NULL, last_modified = NULL WHERE url = ?")
                    .run([.text(url)])
            }
        }
    }

    public var keepsEntries: Bool { true }

    public func history(of url: String) throws(StateError) -> FeedHistory {
        guard let document = try database.storedDocument(of: url) else { throw database.damagedDocument(of: url) }
        return FeedHistory(document: document)
    }

    /// The entries follow: they name their feed by its number.
    public func rename(feed url: String, to newURL: String) throws(StateError) {
        try writer.flush()
        try database.transaction { () throws(StateError) in
            try database.prepare("UPDATE feeds SET url = ?, moved_to = NULL WHERE url = ?")
                .run([.text(newURL), .text(url)])
        }
    }

    public func prune(feeds: [String]?, keepDays: Int, keepPerFeed: Int, now: Timestamp) throws(StateError) {
        try writer.flush()
        var lastFull: Int64 = 0
        // (`meta.value` may be NULL in a file: read as never, as no row is.)
        try database.prepare("SELECT value FROM meta WHERE name = 'last_full_prune'").query {
            lastFull = $0.integer(0) ?? 0
        }
        // The whole state once a day (age-based retention); otherwise only the
        // feeds whose listing changed in this run.
        // A new state has nothing old to drop: its first full pass is a day away.
        let full = RetentionSchedule.isFullPass(feeds: feeds, lastFull: lastFull, now: now.secondsSince1970)
        let rule = RetentionRule(keepDays: keepDays, keepPerFeed: keepPerFeed, now: now)
        try database.transaction { () throws(StateError) in
            let select = try database.prepare(
                full
                    ? "SELECT feed, document FROM feed_entries"
                    : "SELECT feed, document FROM feed_entries WHERE feed = (SELECT id FROM feeds WHERE url = ?)")
            var pruned: [(feed: Int64, document: [UInt8], dates: StoredDates)] = []
            func prune(_ row: Statement) throws(StateError) {
                // A damaged document is left as it is: reading it reports it.
                guard var document = FeedEntries(document: row.blob(1)),
                    document.prune(by: rule)
                else { return }
                let feed = try row.integer(0, notNull: "feed_entries.feed")
                pruned.append((feed, document.document, document.dates(pivot: now.secondsSince1970)))
            }
            if full {
                try select.query(row: prune)
            } else {
                for url in feeds ?? [] { try select.query([.text(url)], row: prune) }
            }
            for (feed, document, dates) in pruned { try database.store(document: document, dates: dates, feed: feed) }
            if RetentionSchedule.notesPass(full: full, lastFull: lastFull) {
                try database.prepare("INSERT OR REPLACE INTO meta(name, value) VALUES ('last_full_prune', ?)")
                    .run([.integer(now.secondsSince1970)])
            }
        }
    }
}
