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
        // 4: compact entries. A feed is a number in its entries (its URL was
        // repeated in every entry and in two indexes); the two indexes go (every
        // query reads one feed's entries, a few hundred rows found by the key's
        // prefix); the unused content_hash goes; and every entry is compressed
        // (`EntryCompression`, done by `compressStoredEntries` in the same
        // transaction). A file that had entries is then vacuumed once.
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
        CREATE TABLE entries_v4(
            feed INTEGER NOT NULL REFERENCES feeds_v4(id) ON DELETE CASCADE,
            key TEXT NOT NULL, position INTEGER NOT NULL,
            first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL, first_date INTEGER, entry_date INTEGER,
            latest_date INTEGER NOT NULL, first_position INTEGER NOT NULL,
            entry BLOB NOT NULL,
            PRIMARY KEY(feed, key)) WITHOUT ROWID;
        INSERT INTO entries_v4(feed, key, position, first_seen, last_seen, first_date, entry_date, latest_date,
            first_position, entry)
        SELECT f.id, e.key, e.position, e.first_seen, e.last_seen, e.first_date, e.entry_date, e.latest_date,
            e.first_position, e.entry
        FROM entries e JOIN feeds_v4 f ON f.url = e.feed_url ORDER BY f.id, e.key;
        DROP TABLE entries;
        DROP TABLE feeds;
        ALTER TABLE feeds_v4 RENAME TO feeds;
        ALTER TABLE entries_v4 RENAME TO entries;
        """,
    ]

    /// Reads every stored entry (the store reads from one task at a time).
    private let decompressor = EntryCompression.Decompressor()

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
                if index + 1 == 4 { try compressStoredEntries() }
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

    /// Schema 4's second half: every entry stored uncompressed is compressed
    /// in place, one feed at a time (memory stays that of one feed's entries).
    private func compressStoredEntries() throws(StateError) {
        var feeds: [Int64] = []
        try database.prepare("SELECT id FROM feeds").query { feeds.append($0.integer(0) ?? 0) }
        let compressor = EntryCompression.Compressor()
        let select = try database.prepare("SELECT key, entry FROM entries WHERE feed = ?")
        let update = try database.prepare("UPDATE entries SET entry = ? WHERE feed = ? AND key = ?")
        for feed in feeds {
            var rows: [(key: String, entry: [UInt8])] = []
            try select.query([.integer(feed)]) { row in
                let stored = row.blob(1)
                // An entry that cannot be decoded stays as it is: reading it reports it.
                if EntryCompression.isPlain(stored), let entry = EntryCodec.decode(stored) {
                    rows.append((row.text(0) ?? "", EntryCompression.stored(entry, with: compressor)))
                }
            }
            for (key, entry) in rows { try update.run([.blob(entry), .integer(feed), .text(key)]) }
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
            try storeEntries(entries, prepared: prepared, feed: feed, now: now)
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

    /// Upserts the entries a feed lists now, in the stored forms prepared
    /// beside the parse (`PreparedEntries(entries)`, never `.notKept`); an edited entry (same key, new content) is updated
    /// in place and keeps its first-seen facts.
    private func storeEntries(_ entries: [Entry], prepared: PreparedEntries, feed: Int64, now: Int64)
        throws(StateError)
    {
        let insert = try database.prepare(
            """
            INSERT INTO entries(feed, key, position, first_seen, last_seen, first_date, entry_date, latest_date,
                first_position, entry)
            VALUES (?1, ?2, ?3, ?4, ?4, ?5, ?5, COALESCE(?5, ?4), ?3, ?6)
            ON CONFLICT(feed, key) DO UPDATE SET entry = excluded.entry,
                position = excluded.position, last_seen = excluded.last_seen, entry_date = excluded.entry_date,
                latest_date = MAX(COALESCE(excluded.entry_date, entries.first_seen),
                                  COALESCE(entries.first_date, entries.first_seen))
            """)
        // In key order: a new feed's rows then fill each page in turn, where feed order
        // would split pages half empty.
        for position in entries.indices.sorted(by: { prepared.keys[$0] < prepared.keys[$1] }) {
            try insert.run([
                .integer(feed), .text(prepared.keys[position]), .integer(Int64(position)), .integer(now),
                .integer(entries[position].ownDate?.secondsSince1970), .blob(prepared.stored[position]),
            ])
        }
    }

    public var keepsEntries: Bool { true }

    public func sightings(of url: String) throws(StateError) -> [String: EntrySighting] {
        var result: [String: EntrySighting] = [:]
        try database.prepare(
            """
            SELECT key, first_seen, last_seen, first_date, first_position FROM entries
            WHERE feed = (SELECT id FROM feeds WHERE url = ?)
            """
        ).query([.text(url)]) { row in
            result[row.text(0) ?? ""] = EntrySighting(
                firstSeen: stamp(row.integer(1) ?? 0), lastSeen: stamp(row.integer(2) ?? 0),
                firstDate: row.integer(3).map(stamp), firstPosition: Int(row.integer(4) ?? 0))
        }
        return result
    }

    // `latest_date` is the latest date the timeline can give an entry: its
    // own date (else its first-seen time) or, for a restamping feed, the
    // date first seen. A future date is only ever lowered, to first seen.

    public func entries(of url: String, notOlderThan cutoff: Timestamp?, except: Set<String>) throws(StateError)
        -> [StoredEntry]
    {
        var result: [StoredEntry] = []
        var unreadable = 0
        let statement = try database.prepare(
            """
            SELECT key, entry, first_seen, last_seen, first_date, position, first_position FROM entries
            WHERE feed = (SELECT id FROM feeds WHERE url = ?) AND latest_date >= ?
            ORDER BY last_seen DESC, position ASC, key ASC
            """)
        try statement.query([.text(url), .integer(cutoff?.secondsSince1970 ?? Int64.min)]) { row in
            let key = row.text(0) ?? ""
            if !except.isEmpty && except.contains(key) { return }
            if let entry = EntryCompression.entry(row.blob(1), with: decompressor) {
                result.append(
                    StoredEntry(
                        key: key, entry: entry,
                        firstSeen: Timestamp(secondsSince1970: row.integer(2) ?? 0),
                        lastSeen: Timestamp(secondsSince1970: row.integer(3) ?? 0),
                        firstDate: row.integer(4).map(stamp), position: Int(row.integer(5) ?? 0),
                        firstPosition: Int(row.integer(6) ?? 0)))
            } else {
                unreadable += 1
            }
        }
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
        try database.transaction { () throws(StateError) in
            try database.prepare("UPDATE feeds SET url = ?, moved_to = NULL WHERE url = ?")
                .run([.text(newURL), .text(url)])
        }
    }

    public func summary(of url: String) throws(StateError) -> (count: Int, newest: Timestamp?) {
        var result: (Int, Timestamp?) = (0, nil)
        try database.prepare(
            """
            SELECT COUNT(*), MAX(COALESCE(entry_date, first_seen)) FROM entries
            WHERE feed = (SELECT id FROM feeds WHERE url = ?)
            """
        ).query([.text(url)]) { row in result = (Int(row.integer(0) ?? 0), row.integer(1).map(stamp)) }
        return result
    }

    public func prune(feeds: [String]?, keepDays: Int, keepPerFeed: Int, now: Timestamp) throws(StateError) {
        try commit()
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
            for feed in full ? try allFeeds() : try ids(of: feeds ?? []) {
                try pruneFeed(feed, cutoff: cutoff, keepPerFeed: keepPerFeed)
            }
            if full || lastFull == 0 {
                try database.prepare("INSERT OR REPLACE INTO meta(name, value) VALUES ('last_full_prune', ?)")
                    .run([.integer(now.secondsSince1970)])
            }
        }
    }

    private func allFeeds() throws(StateError) -> [Int64] {
        var ids: [Int64] = []
        try database.prepare("SELECT id FROM feeds").query { ids.append($0.integer(0) ?? 0) }
        return ids
    }

    private func ids(of urls: [String]) throws(StateError) -> [Int64] {
        let select = try database.prepare("SELECT id FROM feeds WHERE url = ?")
        var ids: [Int64] = []
        for url in urls { try select.query([.text(url)]) { ids.append($0.integer(0) ?? 0) } }
        return ids
    }

    /// Entries still listed (seen in the feed's last fetch that listed
    /// entries: the latest `last_seen`) are never pruned; the others go when
    /// older than the cutoff or beyond the newest `keepPerFeed`. (Not
    /// `last_success`: a 304 moves that on, and the entries it still lists
    /// would count as gone.)
    private func pruneFeed(_ feed: Int64, cutoff: Int64, keepPerFeed: Int) throws(StateError) {
        try database.prepare(
            """
            DELETE FROM entries WHERE feed = ?1
            AND last_seen < (SELECT MAX(last_seen) FROM entries WHERE feed = ?1)
            AND (last_seen < ?2 OR key NOT IN (
                SELECT key FROM entries WHERE feed = ?1 ORDER BY last_seen DESC, position ASC, key ASC LIMIT ?3))
            """
        ).run([.integer(feed), .integer(cutoff), .integer(Int64(keepPerFeed))])
    }
}

func stamp(_ seconds: Int64) -> Timestamp { Timestamp(secondsSince1970: seconds) }
