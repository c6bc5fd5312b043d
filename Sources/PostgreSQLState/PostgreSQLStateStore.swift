import Basics
import FeedModel
import FeedState
import Foundation
import StateDocument

/// The state in a PostgreSQL database, through libpq: the same facts as the
/// SQLite file, in the same shapes (`FeedRecord` in a row per feed, the
/// feed's entries as one `FeedEntries` document beside it), so that a state
/// moves between the two unchanged (`StateCopy`).
///
/// Outcomes are gathered in batches of `batchLimit` and stored in one
/// transaction through libpq's pipeline mode: two round trips per batch, not
/// per statement (its feeds' rows read, then each record `FeedRecord.after`
/// of its row written: `+Outcomes`). A batch the server refuses is sent
/// again outcome by outcome, each alone, so that one bad outcome costs only
/// its own feed.
/// A fetched feed whose document comes out the same bytes as the one read
/// is not sent again: only its record is written.
///
/// Any number of runs and workers, on any machines, share the state
/// (`SharedStateStore`, in `+Shared`): each writes only the feeds whose
/// hosts it holds the lease of.
public final class PostgreSQLStateStore: StateStore {
    let connection: PostgreSQLConnection
    /// The connection string, for the lease keeper's own connection.
    let conninfo: String

    /// Outcomes per batch: a killed run loses at most these (their feeds are
    /// fetched whole again next time, having no validators stored).
    static let batchLimit = 64

    /// The advisory lock a migration holds.
    static let migrationLock: Int64 = 0x6665_6564_6D65_7202

    /// Opens the database a libpq connection string names and brings its schema up to date.
    /// - Throws: `.cannotCreate` when the tables cannot be made (no
    ///   privilege); else `.unusable`, with libpq's reason (server
    ///   unreachable, authentication refused, database missing, a schema
    ///   newer than this feedmerge's).
    /// - Parameter whenLost: what a call does when it finds the connection lost.
    public init(connecting conninfo: String, whenLost: LostConnection = .givenUpAfterPatience) throws(StateError) {
        self.conninfo = conninfo
        self.whenLost = whenLost
        connection = try PostgreSQLConnection(conninfo)
        try connection.execute(Self.sessionSettings)
        try PostgreSQLSchema.migrate(connection)
    }

    /// A batch's commit in the middle of a run returns once the server has
    /// it, not once it is on the server's disk (`synchronous_commit = off`):
    /// the run does not wait for the disk once per batch. A killed run loses
    /// nothing it committed; a crash of the server itself keeps the database
    /// consistent and may lose the last commits (under a second: PostgreSQL's
    /// `wal_writer_delay` three times), whose feeds are then fetched whole
    /// again. The end of a run (`commit`, `record(all:)`, pruning) waits for
    /// the disk (`flush(durable:)`), and so covers every commit before it;
    /// so do a claim, a subscription and a release (`durably`, `pipeline(durable:)`).
    /// (`application_name` names the run's connection among the server's sessions.)
    static let sessionSettings = "SET synchronous_commit TO off; SET application_name TO 'feedmerge'"

    /// What a call does when it finds the connection lost (the server
    /// restarted, the network dropped). Either way what was lost with it is
    /// reported where it was lost (those feeds are fetched whole next time).
    public enum LostConnection: Sendable {
        /// A one-shot run: the connection is opened again before the next
        /// call, a server that is restarting getting `reopenPatience` to come
        /// back; one that does not is given up for the rest of the run: every
        /// later call fails at once, and the run goes on without its state,
        /// as with a file that cannot be written.
        case givenUpAfterPatience
        /// A worker, which outlives its database: each call tries once to
        /// open it again and fails at once if it cannot; it is never given
        /// up. The worker waits between its tries (a backoff it can stop).
        case triedAtEachCall
    }

    let whenLost: LostConnection

    func reopenIfLost() throws(StateError) {
        if let lost { throw lost }
        guard !connection.isOpen else { return }
        var waited = 0.0
        var pause = 0.1
        while !connection.reopen() {
            let reason = connection.lastMessage
            let error = connection.error(
                "the connection was lost and cannot be opened again" + (reason.isEmpty ? "" : " (\(reason))"))
            guard whenLost == .givenUpAfterPatience else { throw error }
            guard waited < Self.reopenPatience else {
                lost = error
                throw error
            }
            usleep(UInt32(pause * 1_000_000))
            waited += pause
            pause = min(pause * 2, 1)
        }
        do {
            try connection.execute(Self.sessionSettings)
        } catch {
            if whenLost == .givenUpAfterPatience { lost = error }
            throw error
        }
    }

    /// Runs a read (or a write that gives the same rows run twice) once
    /// more on a new connection when the connection is found lost during it.
    /// - Returns: what `body` gave, on its last run: a body gathers its rows
    ///   afresh each time, so a first run cut short leaves nothing behind.
    func retrying<Value>(_ body: () throws(StateError) -> Value) throws(StateError) -> Value {
        try reopenIfLost()
        do {
            return try body()
        } catch {
            guard !connection.isOpen else { throw error }
            try reopenIfLost()
            return try body()
        }
    }

    /// How long a one-shot run tries a lost connection again, in seconds (a server restart takes one or two).
    static let reopenPatience = 10.0
    /// The connection given up for the rest of the run, and why (`givenUpAfterPatience`).
    private var lost: StateError?

    /// The name messages give the database (`postgresql://user@host/db`).
    public var name: String { connection.name }

    /// A store dropped with outcomes not sent (a run that stopped early)
    /// sends them now, and says on standard error what could not be kept.
    deinit {
        guard !batch.isEmpty || undurable else { return }
        do {
            for (url, error) in try commit().sorted(by: { $0.key < $1.key }) {
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

    public var keepsEntries: Bool { true }

    // MARK: Records

    public func feeds() throws(StateError) -> [String: FeedRecord] {
        try flush()
        let result = try retrying { () throws(StateError) in
            var result: [String: FeedRecord] = [:]
            try connection.query(Statements.selectFeeds) { row throws(StateError) in
                let record = try Self.feedRecord(row)
                result[record.url] = record
            }
            return result
        }
        known = Set(result.keys)
        return result
    }

    public func feed(_ url: String) throws(StateError) -> FeedRecord? {
        try flush()
        return try retrying { () throws(StateError) in
            var result: FeedRecord?
            try connection.query(Statements.selectFeed, [.text(url)]) { row throws(StateError) in
                result = try Self.feedRecord(row)
            }
            return result
        }
    }

    /// A record whose stored metadata cannot be read is given without its
    /// validators (as the SQLite store does): the feed is fetched whole.
    /// - Throws: `.damaged` when a NOT NULL column is NULL.
    static func feedRecord(_ row: Row) throws(StateError) -> FeedRecord {
        let metadata = row.bytes(15).map(FeedMetadataCodec.decode)
        let damaged = metadata.map { $0 == nil } ?? false
        var record = FeedRecord(
            url: try row.text(0, notNull: "feeds.url"),
            firstSeen: Timestamp(secondsSince1970: try row.integer(4, notNull: "feeds.first_seen")))
        record.movedTo = row.text(1)
        record.etag = damaged ? nil : row.text(2)
        record.lastModified = damaged ? nil : row.text(3)
        record.lastFetch = row.integer(5).map(Timestamp.init(secondsSince1970:))
        record.lastSuccess = row.integer(6).map(Timestamp.init(secondsSince1970:))
        record.lastStatus = row.integer(7).map { Int($0) }
        record.consecutiveFailures = Int(try row.integer(8, notNull: "feeds.consecutive_failures"))
        record.lastError = row.text(9)
        record.notBefore = row.integer(10).map(Timestamp.init(secondsSince1970:))
        record.gone = try row.flag(11, notNull: "feeds.gone")
        record.title = row.text(12)
        record.link = row.text(13)
        record.metadata = metadata ?? nil
        record.restamping = try row.flag(14, notNull: "feeds.restamping")
        record.failingSince = row.integer(16).map(Timestamp.init(secondsSince1970:))
        if row.columns > 20 {
            record.nextCheck = row.integer(17).map(Timestamp.init(secondsSince1970:))
            record.fetchedBy = row.text(18)
            record.leaseHolder = row.text(19)
            record.lastReport = row.text(20).flatMap(ReportedOutcome.init(encoded:))
        }
        return record
    }

    public func storedDates() throws(StateError) -> [String: StoredDates] {
        try flush()
        return try retrying { () throws(StateError) in
            var result: [String: StoredDates] = [:]
            try connection.query(Statements.selectDates) { row throws(StateError) in
                if let bytes = row.bytes(1), let dates = StoredDates(encoded: bytes) {
                    result[try row.text(0, notNull: "feeds.url")] = dates
                }
            }
            return result
        }
    }

    // MARK: Outcomes (`+Outcomes`)

    /// Outcomes recorded and not sent yet, in order (and statements that are
    /// not outcomes: validators dropped), each written in its batch's
    /// transaction after its feed's row is read there.
    var batch: [PendingWrite] = []
    /// Outcomes dropped because their lease was lost (`takeDroppedOutcomes`).
    var dropped: [String] = []
    /// The lease keeper this store made (`makeLeaseKeeper`): told of the leases its fence finds lost.
    weak var keeper: PostgreSQLLeaseKeeper?
    /// The documents of the batch's fetched feeds, as they will be stored
    /// (their bytes: the entries they were made from are let go): what the
    /// store gives back of those feeds until the batch is sent.
    var unsent: [String: [UInt8]] = [:]
    /// Commits were made since the last durable one (`flush(durable:)`).
    var undurable = false
    /// Outcomes that could not be stored, by feed URL, until `commit` takes them.
    var failures: [String: StateError] = [:]
    /// The rows added since the tables were last analyzed (`+Statistics`).
    var statistics = TableStatistics()
    /// When a claim last took the unlisted feeds out of the schedule (`+Shared`).
    var unscheduledAt: Int64?

    // MARK: Entries

    /// Every feed the database has a record of, once `feeds()` has read them
    /// (the run holds the lock: no other writer adds one): a feed not among
    /// them has no document to read (a new feed's first fetch costs no query).
    var known: Set<String>?

    /// The last document read, by feed URL, with its bytes as stored (none: the feed has
    /// nothing stored): a fetched feed's history is read just before its outcome is
    /// recorded, which upserts into it (and compares the bytes).
    var cached: (url: String, stored: StoredDocument)?

    /// The feeds of the last due claim that had nothing stored when it was taken: read
    /// under the claim's leases, so no other process can have stored one since (a lease
    /// lost meanwhile fences this process's writes off). A feed leaves it once an outcome
    /// stores its document; the next claim replaces it.
    var claimedWithNothingStored: Set<String> = []

    /// A document and the bytes it was read from (none: the feed has none stored).
    struct StoredDocument {
        var document: FeedEntries
        var bytes: [UInt8]?
    }

    /// A feed's document (an empty one when it has none); nil when it is damaged.
    /// Throws only when the server cannot be read.
    /// - Parameter trustingRecordsRead: a feed the records read at the start did not name has
    ///   nothing stored (false under a lease: another process may have stored it since).
    func storedDocument(of url: String, trustingRecordsRead: Bool = true) throws(StateError) -> StoredDocument? {
        if let bytes = unsent[url] {
            return FeedEntries(document: bytes).map { StoredDocument(document: $0, bytes: bytes) }
        }
        if let cached, cached.url == url { return cached.stored }
        let nothing = StoredDocument(document: FeedEntries(), bytes: nil)
        if claimedWithNothingStored.contains(url) { return nothing }
        if trustingRecordsRead, let known, !known.contains(url) { return nothing }
        let stored = try retrying { () throws(StateError) in
            var bytes: [UInt8]?
            try connection.query(Statements.selectDocument, [.text(url)]) { bytes = $0.bytes(0) }
            return bytes
        }
        guard let bytes = stored else {
            cached = (url, nothing)
            return nothing
        }
        guard let document = FeedEntries(document: bytes) else { return nil }
        cached = (url, StoredDocument(document: document, bytes: bytes))
        return cached?.stored
    }

    public func history(of url: String) throws(StateError) -> FeedHistory {
        // (Another process may have stored the feed since the records were read: it is read, unless
        // this process's claim found nothing stored.)
        guard let stored = try storedDocument(of: url, trustingRecordsRead: false) else {
            throw connection.error("the stored entries of \(url) are damaged", kind: .damaged)
        }
        return FeedHistory(document: stored.document)
    }

    public func forgetValidators(of urls: [String]) throws(StateError) {
        batch += urls.map { .statement(url: $0, Statements.dropValidators, [.text($0)]) }
        try flush(durable: true)
        defer { failures = [:] }
        if let failure = failures.min(by: { $0.key < $1.key }) { throw failure.value }
    }

    public func rename(feed url: String, to newURL: String) throws(StateError) {
        try flush()
        cached = nil
        // A shared state lists the new URL before any outcome of it (`subscribe`): that row, never
        // fetched, gives way to the feed's record, which takes its listing.
        let writes: [(Statement, [Parameter])] = [
            (Statements.dropSubscribed, [.text(url), .text(newURL)]),
            (Statements.rename, [.text(url), .text(newURL), .text(URLAuthority.host(of: newURL))]),
        ]
        try retrying { () throws(StateError) in
            if let failure = try connection.pipeline(writes) { throw failure }
        }
        if known?.remove(url) != nil { known?.insert(newURL) }
        claimedWithNothingStored.remove(url)
    }

    /// The retention schedule and retention's rule (`RetentionRule`) on each document,
    /// read `pruneChunk` documents at a time: memory stays that of a few feeds.
    public func prune(feeds: [String]?, keepDays: Int, keepPerFeed: Int, now: Timestamp) throws(StateError) {
        try prune(feeds: feeds, keepDays: keepDays, keepPerFeed: keepPerFeed, now: now, leases: nil)
    }

    /// - Parameter leases: each feed's lease, under which it is written (a run under claims:
    ///   only `feeds`, and never every feed at once, since another process may be writing any other).
    func prune(
        feeds: [String]?, keepDays: Int, keepPerFeed: Int, now: Timestamp, leases: [String: HostLease]?
    ) throws(StateError) {
        try flush()
        cached = nil
        let lastFull = leases == nil ? try lastFullPruneRead() : 0
        let full =
            leases == nil && RetentionSchedule.isFullPass(feeds: feeds, lastFull: lastFull, now: now.secondsSince1970)
        let rule = RetentionRule(keepDays: keepDays, keepPerFeed: keepPerFeed, now: now)
        var writes: [(Statement, [Parameter])] = []
        func prune(_ row: Row, lease: HostLease? = nil) throws(StateError) {
            // A damaged document is left as it is: reading it reports it.
            guard let bytes = row.bytes(1), var document = FeedEntries(document: bytes),
                document.prune(by: rule)
            else { return }
            let parameters: [Parameter] = [
                .integer(try row.integer(0, notNull: "feed_entries.feed")), .bytes(document.document),
                .bytes(document.dates(pivot: now.secondsSince1970).encoded),
            ]
            if let lease {
                writes.append(
                    (Statements.storeDocumentFenced, parameters + [.text(lease.host), .integer(lease.token)]))
            } else {
                writes.append((Statements.storeDocument, parameters))
            }
        }
        if full {
            var after: Int64 = 0
            var more = true
            while more {
                more = false
                try connection.query(Statements.documentsAfter, [.integer(after), .integer(Self.pruneChunk)]) {
                    row throws(StateError) in
                    after = try row.integer(0, notNull: "feed_entries.feed")
                    more = true
                    try prune(row)
                }
                try send(&writes)
            }
        } else {
            for url in feeds ?? [] {
                try connection.query(Statements.selectFeedDocument, [.text(url)]) { row throws(StateError) in
                    try prune(row, lease: leases?[url])
                }
                if writes.count >= Self.pruneChunk { try send(&writes) }
            }
        }
        if leases == nil, RetentionSchedule.notesPass(full: full, lastFull: lastFull) {
            writes.append((Statements.noteFullPrune, [.integer(now.secondsSince1970)]))
        }
        try send(&writes)
    }

    static let pruneChunk: Int64 = 256

    private func send(_ writes: inout [(Statement, [Parameter])]) throws(StateError) {
        guard !writes.isEmpty else { return }
        defer { writes = [] }
        if let failure = try connection.pipeline(writes, durable: true) { throw failure }
    }
}
