import Basics
internal import CLibPQ
import FeedState

/// The tables, and the statements the store runs on them.
///
/// A row per feed (`feeds`: its record), and beside it a row per feed with
/// its entries as one compressed `FeedEntries` document (`feed_entries`),
/// as in the SQLite file. Not a row per entry: a run reads and writes a
/// feed's entries as a unit (its listing replaces the last one, its history
/// is pruned together), and a row per entry would cost PostgreSQL a tuple
/// header, an index entry and a statement per entry (sixty for a typical
/// feed) where a document costs one of each per feed. The documents are
/// LZ4-compressed by `FeedEntries` already, so their column is stored
/// `EXTERNAL` (out of line, not compressed a second time by TOAST). A
/// feed's `entry_dates` (`StoredDates`) is written in the same statement
/// as its document, so the two never disagree. Times are seconds since
/// 1970 in `bigint`, as in the SQLite file: the stores copy into each other
/// unchanged. The only indexes are the keys (`url` unique, `id`), which
/// every statement looks rows up by, `feeds_due` for the claims and
/// `feeds_next_check` for the feeds due whatever their host. A URL
/// may be of any length (a B-tree entry may not pass about 2,700 bytes): its
/// uniqueness is a B-tree over its SHA-256 (`feedmerge_url_key`, 32 bytes
/// whatever the URL), and the lookups by URL go through a hash index (4
/// bytes an entry), which `url = $1` uses as it is (a set of URLs is a semi-join,
/// `SharedStatements.urlIn`).
enum PostgreSQLSchema {
    /// A schema version: its SQL, then what SQL alone cannot do (a key made
    /// by `URLAuthority`), in the same transaction.
    struct Migration: Sendable {
        let sql: String
        var then: (@Sendable (PostgreSQLConnection) throws(StateError) -> Void)? = nil
    }

    /// Schema versions, applied in order; `meta.schema_version` says how far a database got.
    static let migrations: [Migration] = [
        Migration(
            sql: """
                CREATE TABLE feeds(
                    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    url text NOT NULL UNIQUE,
                    moved_to text, etag text, last_modified text,
                    first_seen bigint NOT NULL, last_fetch bigint, last_success bigint, last_status bigint,
                    consecutive_failures bigint NOT NULL DEFAULT 0, last_error text, not_before bigint,
                    gone boolean NOT NULL DEFAULT false, title text, link text, restamping boolean NOT NULL DEFAULT false,
                    metadata bytea, failing_since bigint, entry_dates bytea);
                CREATE TABLE feed_entries(
                    feed bigint PRIMARY KEY REFERENCES feeds(id) ON DELETE CASCADE,
                    document bytea NOT NULL);
                ALTER TABLE feed_entries ALTER COLUMN document SET STORAGE EXTERNAL;
                """),
        // Version 2: several processes share the state (`SharedStateStore`). A feed's host is
        // derived from where it is fetched (the authority of `moved_to`, else `url`); `hosts`
        // holds each host's lease.
        Migration(
            sql: """
                ALTER TABLE feeds
                    ADD COLUMN host text NOT NULL GENERATED ALWAYS AS (COALESCE(lower(regexp_replace(
                        substring(COALESCE(moved_to, url) FROM '://([^/?#\\\\]*)'), '^.*@', '')), '')) STORED,
                    ADD COLUMN next_check bigint, ADD COLUMN listed_at bigint, ADD COLUMN fetched_by text;
                CREATE INDEX feeds_due ON feeds(host, next_check);
                CREATE TABLE hosts(
                    host text PRIMARY KEY, lease_holder text, lease_token bigint, lease_until bigint);
                CREATE SEQUENCE lease_tokens;
                INSERT INTO hosts(host) SELECT DISTINCT host FROM feeds;
                """),
        // Version 3: a URL of any length can be stored. `url text UNIQUE` was a B-tree over the
        // URL itself, which refuses an entry past about 2,700 bytes: one overlong URL in a list
        // made the whole batch that held it fail. Uniqueness is now over the URL's SHA-256 (a
        // function, declared immutable: `convert_to` is only stable because of the client
        // encoding it does not use here); lookups by URL use a hash index.
        Migration(
            sql: """
                CREATE FUNCTION feedmerge_url_key(url text) RETURNS bytea
                    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT sha256(convert_to(url, 'UTF8')) $$;
                CREATE UNIQUE INDEX feeds_url_digest ON feeds ((feedmerge_url_key(url)));
                CREATE INDEX feeds_url_lookup ON feeds USING hash (url);
                ALTER TABLE feeds DROP CONSTRAINT feeds_url_key;
                """),
        // Version 4: a feed's host is `URLAuthority.host(of:)` (one canonical key per host: case,
        // final dot, default port, every spelling of an address), written by the store with
        // each record; the hosts stored by version 2's expression are made again, and lease
        // rows no feed names any more (and no one holds) are dropped.
        Migration(
            sql: "ALTER TABLE feeds ALTER COLUMN host DROP EXPRESSION",
            then: { connection throws(StateError) in
                var ids: [Int64?] = []
                var hosts: [String] = []
                try connection.query("SELECT id, COALESCE(moved_to, url), host FROM feeds") {
                    row throws(StateError) in
                    let host = URLAuthority.host(of: try row.text(1, notNull: "feeds.url"))
                    if host != row.text(2) {
                        ids.append(try row.integer(0, notNull: "feeds.id"))
                        hosts.append(host)
                    }
                }
                try connection.query(
                    "UPDATE feeds f SET host = k.host FROM unnest($1::bigint[], $2::text[]) AS k(id, host) WHERE f.id = k.id",
                    [.integers(ids), .texts(hosts)])
                try connection.execute(
                    """
                    INSERT INTO hosts(host) SELECT DISTINCT host FROM feeds ON CONFLICT DO NOTHING;
                    DELETE FROM hosts h WHERE (h.lease_until IS NULL OR h.lease_until < \(Statements.serverNow))
                        AND NOT EXISTS (SELECT 1 FROM feeds f WHERE f.host = h.host);
                    """)
            }),
        // Version 5: how the run that stored a feed's outcome reported it (`ReportedOutcome`), for
        // `feedmerge render`. NULL: not known yet (the next outcome stored says it).
        Migration(sql: "ALTER TABLE feeds ADD COLUMN last_report text"),
        // Version 6: the feeds due found without a pass over every feed (`SharedStatements.dueCount`:
        // whether any is due, and the backlog while it is short).
        Migration(sql: "CREATE INDEX feeds_next_check ON feeds(next_check)"),
    ]

    /// Brings the database to the newest schema, under an advisory lock
    /// (two runs starting on a new database do not both create it), one
    /// version per transaction. A database of a newer schema is refused:
    /// this feedmerge would misread it, and its writes could damage it.
    static func migrate(_ connection: PostgreSQLConnection) throws(StateError) {
        let target = Int64(migrations.count)
        try connection.execute("BEGIN")
        do throws(StateError) {
            try connection.query("SELECT pg_advisory_xact_lock($1)", [.integer(PostgreSQLStateStore.migrationLock)])
            try connection.execute("CREATE TABLE IF NOT EXISTS meta(name text PRIMARY KEY, value bigint NOT NULL)")
            var version: Int64 = 0
            try connection.query("SELECT value FROM meta WHERE name = 'schema_version'") { row throws(StateError) in
                version = try row.integer(0, notNull: "meta.value")
            }
            guard version <= target else {
                throw connection.error(
                    "its schema is version \(version), newer than this feedmerge's (\(target)): "
                        + "run the feedmerge that wrote it, or a newer one")
            }
            for index in Int(version)..<Int(target) {
                try connection.execute(migrations[index].sql)
                try migrations[index].then?(connection)
                try connection.query(
                    """
                    INSERT INTO meta(name, value) VALUES ('schema_version', $1)
                    ON CONFLICT(name) DO UPDATE SET value = excluded.value
                    """, [.integer(Int64(index + 1))])
            }
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }
}

/// The statements a store runs (prepared once per connection).
enum Statements {
    /// The server's clock, in seconds: leases are timed by it, so that the
    /// machines sharing a state need not agree on the time.
    static let serverNow = "extract(epoch FROM clock_timestamp())::bigint"

    /// The statement made to write only while the feed's host lease holds
    /// (its last two parameters: the host and the token): its `VALUES` row
    /// comes from a lease row locked for the transaction, and without one
    /// nothing is written (zero rows: the outcome is dropped).
    static func fenced(_ statement: Statement) -> Statement {
        let count = statement.types.count
        let lease =
            "lease AS (SELECT 1 FROM hosts WHERE host = $\(count + 1) AND lease_token = $\(count + 2) FOR SHARE)"
        var sql = statement.sql
        if let values = sql.range(of: "VALUES ("), let end = sql[values.upperBound...].firstIndex(of: ")") {
            sql.replaceSubrange(
                values.lowerBound...end, with: "SELECT " + sql[values.upperBound..<end] + " FROM lease")
        }
        let trimmed = sql.drop { $0.isWhitespace }
        sql = trimmed.hasPrefix("WITH ") ? "WITH \(lease), " + trimmed.dropFirst(5) : "WITH \(lease) " + trimmed
        return Statement(name: statement.name + "_fenced", sql: sql, types: statement.types + [25, 20])
    }

    /// Each outcome statement's fenced version, made once.
    static func fencedVersion(of statement: Statement) -> Statement {
        switch statement.name {
        case skipped.name: skippedFenced
        case notModified.name: notModifiedFenced
        case failed.name: failedFenced
        case fetched.name: fetchedFenced
        case fetchedWithDocument.name: fetchedWithDocumentFenced
        default: fenced(statement)
        }
    }
    /// `skipped` while the lease ($3 host, $4 token) holds (an `UPDATE` has no `VALUES` row to fence).
    static let skippedFenced = Statement(
        name: "skipped_fenced",
        sql: """
            WITH lease AS (SELECT 1 FROM hosts WHERE host = $3 AND lease_token = $4 FOR SHARE)
            UPDATE feeds SET last_report = $2 WHERE url = $1 AND EXISTS (SELECT 1 FROM lease)
            """, types: [25, 25, 25, 20])
    static let notModifiedFenced = fenced(notModified)
    static let failedFenced = fenced(failed)
    static let fetchedFenced = fenced(fetched)
    static let fetchedWithDocumentFenced = fenced(fetchedWithDocument)

    static let feedColumns = """
        url, moved_to, etag, last_modified, first_seen, last_fetch, last_success, last_status,
        consecutive_failures, last_error, not_before, gone, title, link, restamping, metadata, failing_since
        """
    /// A record's columns: the feed's, then its place in a shared state (17 to 19), then how
    /// the run that stored its outcome reported it (20).
    static let recordColumns = """
        \(feedColumns), next_check, fetched_by,
        (SELECT lease_holder FROM hosts h WHERE h.host = feeds.host AND h.lease_until >= \(serverNow)),
        last_report
        """
    static let selectFeeds = Statement(name: "select_feeds", sql: "SELECT \(recordColumns) FROM feeds", types: [])
    static let selectFeed = Statement(
        name: "select_feed", sql: "SELECT \(recordColumns) FROM feeds WHERE url = $1", types: [25])
    static let selectDates = Statement(
        name: "select_dates", sql: "SELECT url, entry_dates FROM feeds WHERE entry_dates IS NOT NULL", types: [])
    static let selectDocument = Statement(
        name: "select_document",
        sql: "SELECT e.document FROM feed_entries e JOIN feeds f ON f.id = e.feed WHERE f.url = $1", types: [25])
    static let selectFeedDocument = Statement(
        name: "select_feed_document",
        sql: "SELECT e.feed, e.document FROM feed_entries e JOIN feeds f ON f.id = e.feed WHERE f.url = $1",
        types: [25])
    static let documentsAfter = Statement(
        name: "documents_after", sql: "SELECT feed, document FROM feed_entries WHERE feed > $1 ORDER BY feed LIMIT $2",
        types: [20, 20])

    /// The columns `FeedRecord.after` reads (all but the metadata, which it only ever replaces),
    /// then the feed's host (17), of the feeds among the URLs of $1, locked until the
    /// transaction that writes them ends.
    static let selectRecordRows = Statement(
        name: "select_record_rows",
        sql: """
            SELECT url, first_seen, moved_to, etag, last_modified, last_fetch, last_success, last_status,
                   consecutive_failures, last_error, not_before, gone, title, link, restamping, failing_since,
                   last_report, host
            FROM feeds WHERE \(SharedStatements.urlIn) ORDER BY url FOR UPDATE
            """, types: [1009])

    /// The lease rows of the hosts of $1 share-locked in the hosts' order, first in a batch whose
    /// writes are fenced: each fenced write then finds its host's row locked already. The lease
    /// keeper renews (`SharedStatements.renew`) and a release lets go in that order too, so a
    /// renewal on the keeper's connection never waits on a batch that waits on it (a deadlock,
    /// which PostgreSQL ends by failing one of the two).
    static let lockLeaseHosts = Statement(
        name: "lock_lease_hosts", sql: "SELECT host FROM hosts WHERE host = ANY($1) ORDER BY host FOR SHARE",
        types: [1009])

    /// The conflict on the URL's key (`feeds_url_digest`).
    static let onURL = "ON CONFLICT((feedmerge_url_key(url)))"

    /// A record written: $1 url, $2 first seen, $3 the host it is fetched from, then each of
    /// `FeedRecord.Field.allCases` in order ($4 to $19): a first record whole; a stored one
    /// (locked by `selectRecordRows`) only its host and the fields the kind of outcome changes
    /// (`FeedRecord.fields(changedBy:)`), each a plain value. `extra`: a store's own columns
    /// after them ($20 on), written either way.
    private static func record(_ kind: FeedUpdate.Outcome.Kind, extra: [String] = []) -> String {
        let columns = ["url", "first_seen", "host"] + FeedRecord.Field.allCases.map(\.rawValue) + extra
        let changed = ["host"] + FeedRecord.fields(changedBy: kind).map(\.rawValue) + extra
        return """
            INSERT INTO feeds AS f(\(columns.joined(separator: ", ")))
            VALUES (\((1...columns.count).map { "$\($0)" }.joined(separator: ", ")))
            \(onURL) DO UPDATE SET \(changed.map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
            """
    }
    /// `record`'s parameters' types.
    static let recordTypes: [Oid] = [25, 20, 25] + FeedRecord.Field.allCases.map(type)

    /// $1 url, $2 how the run reported the feed: a deferred feed's record keeps all else.
    static let skipped = Statement(
        name: "skipped", sql: "UPDATE feeds SET last_report = $2 WHERE url = $1", types: [25, 25])
    static let notModified = Statement(name: "not_modified", sql: record(.notModified), types: recordTypes)
    static let failed = Statement(name: "failed", sql: record(.failed), types: recordTypes)
    /// $20 the entries' dates.
    static let fetched = Statement(
        name: "fetched", sql: record(.fetched, extra: ["entry_dates"]), types: recordTypes + [17])
    /// $21 the document.
    static let fetchedWithDocument = Statement(
        name: "fetched_with_document",
        sql: """
            WITH record AS (\(record(.fetched, extra: ["entry_dates"])) RETURNING id)
            INSERT INTO feed_entries(feed, document) SELECT id, $21 FROM record
            ON CONFLICT(feed) DO UPDATE SET document = excluded.document
            """, types: recordTypes + [17, 17])

    private static func type(_ field: FeedRecord.Field) -> Oid {
        switch field {
        case .lastFetch, .lastSuccess, .lastStatus, .consecutiveFailures, .notBefore, .failingSince: 20
        case .gone, .restamping: 16
        case .metadata: 17
        case .movedTo, .etag, .lastModified, .lastError, .title, .link, .lastReport: 25
        }
    }

    /// A write of nothing: its commit waits for the commits before it to reach the disk.
    static let touch = Statement(
        name: "touch", sql: "UPDATE meta SET value = value WHERE name = 'schema_version'", types: [])
    static let dropValidators = Statement(
        name: "drop_validators", sql: "UPDATE feeds SET etag = NULL, last_modified = NULL WHERE url = $1", types: [25])
    /// $1 the URL, $2 the new one: the new one's row, if only subscribed (never fetched), is
    /// dropped, and its listing moves to the old one's.
    static let dropSubscribed = Statement(
        name: "drop_subscribed",
        sql: """
            WITH subscribed AS (DELETE FROM feeds WHERE url = $2 AND last_fetch IS NULL RETURNING listed_at)
            UPDATE feeds SET listed_at = GREATEST(listed_at, (SELECT max(listed_at) FROM subscribed)) WHERE url = $1
            """, types: [25, 25])
    /// $1 the URL, $2 the new one, $3 its host.
    static let rename = Statement(
        name: "rename", sql: "UPDATE feeds SET url = $2, moved_to = NULL, host = $3 WHERE url = $1",
        types: [25, 25, 25])
    /// $1 feed id, $2 document, $3 entry dates.
    static let storeDocument = Statement(
        name: "store_document",
        sql: """
            WITH document AS (
                INSERT INTO feed_entries(feed, document) VALUES ($1, $2)
                ON CONFLICT(feed) DO UPDATE SET document = excluded.document)
            UPDATE feeds SET entry_dates = $3 WHERE id = $1
            """, types: [20, 17, 17])
    /// `storeDocument` while the lease ($4 host, $5 token) holds.
    static let storeDocumentFenced = Statement(
        name: "store_document_fenced",
        sql: """
            WITH lease AS (SELECT 1 FROM hosts WHERE host = $4 AND lease_token = $5 FOR SHARE),
            document AS (
                INSERT INTO feed_entries(feed, document) SELECT $1, $2 FROM lease
                ON CONFLICT(feed) DO UPDATE SET document = excluded.document)
            UPDATE feeds SET entry_dates = $3 WHERE id = $1 AND EXISTS (SELECT 1 FROM lease)
            """, types: [20, 17, 17, 25, 20])
    /// A feed's columns, its entries' dates (17), its document (18), how its outcome was reported (19).
    static let selectSnapshot = Statement(
        name: "select_snapshot",
        sql: """
            SELECT \(feedColumns), entry_dates, (SELECT document FROM feed_entries WHERE feed = feeds.id),
                last_report
            FROM feeds WHERE url = $1
            """, types: [25])
    /// Every column of a feed and its document ($19, none when NULL); $20 its host; $21 how its
    /// outcome was reported.
    static let insertSnapshot = Statement(
        name: "insert_snapshot",
        sql: """
            WITH record AS (
                INSERT INTO feeds(\(feedColumns), entry_dates, host, last_report)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $20, $21)
                RETURNING id)
            INSERT INTO feed_entries(feed, document) SELECT id, $19 FROM record WHERE $19 IS NOT NULL
            """, types: [25, 25, 25, 25, 20, 20, 20, 20, 20, 25, 20, 16, 25, 25, 16, 17, 20, 17, 17, 25, 25])
    static let lastFullPrune = Statement(
        name: "last_full_prune", sql: "SELECT value FROM meta WHERE name = 'last_full_prune'", types: [])
    static let noteFullPrune = Statement(
        name: "note_full_prune",
        sql: """
            INSERT INTO meta(name, value) VALUES ('last_full_prune', $1)
            ON CONFLICT(name) DO UPDATE SET value = excluded.value
            """, types: [20])
    static let mergedFeedID = Statement(
        name: "merged_feed_id", sql: "SELECT value FROM meta WHERE name = 'merged_feed_id'", types: [])
    static let keepMergedFeedID = Statement(
        name: "keep_merged_feed_id",
        sql: "INSERT INTO meta(name, value) VALUES ('merged_feed_id', $1) ON CONFLICT(name) DO NOTHING", types: [20])
}
