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
    ]

    public init(path: String) throws(StateError) {
        database = try SQLiteDatabase(path: path)
        try migrate()
    }

    private func migrate() throws(StateError) {
        var version = 0
        try database.prepare("PRAGMA user_version").query { version = Int($0.integer(0) ?? 0) }
        guard version < Self.migrations.count else { return }
        for (index, sql) in Self.migrations.enumerated() where index >= version {
            try database.transaction { () throws(StateError) in
                try database.execute(sql)
                try database.execute("PRAGMA user_version = \(index + 1)")
            }
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

    public func record(_ update: FeedUpdate) throws(StateError) {
        try database.transaction { () throws(StateError) in try apply(update) }
    }

    public func record(all updates: [FeedUpdate]) throws(StateError) {
        guard !updates.isEmpty else { return }
        try database.transaction { () throws(StateError) in
            for update in updates { try apply(update) }
        }
    }

    /// One outcome's statements; the caller holds the transaction.
    private func apply(_ update: FeedUpdate) throws(StateError) {
        let now = update.now.secondsSince1970
        try database.prepare(
            "INSERT INTO feeds(url, first_seen) VALUES (?, ?) ON CONFLICT(url) DO NOTHING"
        ).run([.text(update.url), .integer(now)])
        try database.prepare(
            "UPDATE feeds SET last_fetch = ?, last_status = ?, not_before = ?, moved_to = COALESCE(?, moved_to) WHERE url = ?"
        ).run([
            .integer(now), .integer(update.status.map(Int64.init)), .integer(update.notBefore?.secondsSince1970),
            .text(update.movedTo), .text(update.url),
        ])
        switch update.outcome {
        case .fetched(let entries, let keys, let etag, let lastModified, let metadata, let restamping):
            try storeEntries(entries, keys: keys, feed: update.url, now: now)
            try database.prepare(
                """
                UPDATE feeds SET etag = ?, last_modified = ?, last_success = ?, consecutive_failures = 0,
                    failing_since = NULL, last_error = NULL, gone = 0, title = COALESCE(?, title), link = COALESCE(?, link),
                    metadata = ?, restamping = ? WHERE url = ?
                """
            ).run([
                .text(etag), .text(lastModified), .integer(now), .text(metadata.title?.value), .text(metadata.link),
                .blob(FeedMetadataCodec.encode(metadata)), .integer(restamping ? 1 : 0), .text(update.url),
            ])
        case .notModified:
            try database.prepare(
                """
                UPDATE feeds SET last_success = ?, consecutive_failures = 0, failing_since = NULL, last_error = NULL
                WHERE url = ?
                """
            ).run([.integer(now), .text(update.url)])
        case .skipped:
            break
        case .failed(let message, let gone):
            try database.prepare(
                """
                UPDATE feeds SET consecutive_failures = consecutive_failures + 1, last_error = ?,
                    gone = MAX(gone, ?), failing_since = COALESCE(failing_since, ?) WHERE url = ?
                """
            ).run([.text(message), .integer(gone ? 1 : 0), .integer(now), .text(update.url)])
        }
    }

    /// Upserts the entries a feed lists now; an edited entry (same key, new
    /// content) is updated in place and keeps its first-seen facts.
    /// `content_hash` is no longer used: written 0 (the column stays, so
    /// that no table has to be rebuilt).
    private func storeEntries(_ entries: [Entry], keys: [String], feed: String, now: Int64) throws(StateError) {
        let insert = try database.prepare(
            """
            INSERT INTO entries(feed_url, key, content_hash, position, first_seen, last_seen, first_date, entry_date,
                latest_date, first_position, entry)
            VALUES (?, ?, 0, ?, ?, ?, ?, ?, COALESCE(?, ?), ?3, ?)
            ON CONFLICT(feed_url, key) DO UPDATE SET entry = excluded.entry,
                position = excluded.position, last_seen = excluded.last_seen, entry_date = excluded.entry_date,
                latest_date = MAX(COALESCE(excluded.entry_date, entries.first_seen),
                                  COALESCE(entries.first_date, entries.first_seen))
            """)
        for (position, entry) in entries.enumerated() {
            let date = entry.ownDate?.secondsSince1970
            try insert.run([
                .text(feed), .text(keys[position]), .integer(Int64(position)),
                .integer(now), .integer(now), .integer(date), .integer(date), .integer(date), .integer(now),
                .blob(EntryCodec.encode(entry)),
            ])
        }
    }

    public var keepsEntries: Bool { true }

    public func sightings(of url: String) throws(StateError) -> [String: EntrySighting] {
        var result: [String: EntrySighting] = [:]
        try database.prepare(
            "SELECT key, first_seen, last_seen, first_date, first_position FROM entries WHERE feed_url = ?"
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
            WHERE feed_url = ? AND latest_date >= ? ORDER BY last_seen DESC, position ASC, key ASC
            """)
        try statement.query([.text(url), .integer(cutoff?.secondsSince1970 ?? Int64.min)]) { row in
            let key = row.text(0) ?? ""
            if !except.isEmpty && except.contains(key) { return }
            if let entry = EntryCodec.decode(row.blob(1)) {
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

    public func rename(feed url: String, to newURL: String) throws(StateError) {
        try database.transaction { () throws(StateError) in
            try database.execute("PRAGMA defer_foreign_keys = ON")  // entries follow their feed at commit
            try database.prepare("UPDATE feeds SET url = ?, moved_to = NULL WHERE url = ?")
                .run([.text(newURL), .text(url)])
            try database.prepare("UPDATE entries SET feed_url = ? WHERE feed_url = ?").run([.text(newURL), .text(url)])
        }
    }

    public func summary(of url: String) throws(StateError) -> (count: Int, newest: Timestamp?) {
        var result: (Int, Timestamp?) = (0, nil)
        try database.prepare(
            "SELECT COUNT(*), MAX(COALESCE(entry_date, first_seen)) FROM entries WHERE feed_url = ?"
        ).query([.text(url)]) { row in result = (Int(row.integer(0) ?? 0), row.integer(1).map(stamp)) }
        return result
    }

    public func prune(feeds: [String]?, keepDays: Int, keepPerFeed: Int, now: Timestamp) throws(StateError) {
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
            for feed in full ? try allFeedURLs() : feeds ?? [] {
                try pruneFeed(feed, cutoff: cutoff, keepPerFeed: keepPerFeed)
            }
            if full || lastFull == 0 {
                try database.prepare("INSERT OR REPLACE INTO meta(name, value) VALUES ('last_full_prune', ?)")
                    .run([.integer(now.secondsSince1970)])
            }
        }
    }

    private func allFeedURLs() throws(StateError) -> [String] {
        var urls: [String] = []
        try database.prepare("SELECT url FROM feeds").query { urls.append($0.text(0) ?? "") }
        return urls
    }

    /// Entries still listed (seen in the feed's last fetch that listed
    /// entries: the latest `last_seen`) are never pruned; the others go when
    /// older than the cutoff or beyond the newest `keepPerFeed`. (Not
    /// `last_success`: a 304 moves that on, and the entries it still lists
    /// would count as gone.)
    private func pruneFeed(_ feed: String, cutoff: Int64, keepPerFeed: Int) throws(StateError) {
        try database.prepare(
            """
            DELETE FROM entries WHERE feed_url = ?1
            AND last_seen < (SELECT MAX(last_seen) FROM entries WHERE feed_url = ?1)
            AND (last_seen < ?2 OR key NOT IN (
                SELECT key FROM entries WHERE feed_url = ?1 ORDER BY last_seen DESC, position ASC, key ASC LIMIT ?3))
            """
        ).run([.text(feed), .integer(cutoff), .integer(Int64(keepPerFeed))])
    }
}

func stamp(_ seconds: Int64) -> Timestamp { Timestamp(secondsSince1970: seconds) }
