import Basics
import FeedModel
import FeedState
import StateDocument

/// Storing outcomes: each batch one transaction in two round trips. The
/// first reads the batch's feeds' rows (`Statements.selectRecordRows`, which
/// locks them until the commit); each outcome's record is then
/// `FeedRecord.after` of its row, computed here; the second sends every
/// write, pipelined, and commits. SQL decides no field: it stores the
/// record's values, and in a shared run guards each write by its lease's
/// token (`Statements.fenced`: no row written, the lease is lost).
extension PostgreSQLStateStore {
    /// What a batch holds until it is sent.
    enum PendingWrite {
        /// A feed's outcome, written after its row is read.
        case outcome(PendingOutcome)
        /// A statement that is not an outcome (validators dropped; the write of nothing).
        case statement(url: String, Statement, [Parameter])

        var url: String {
            switch self {
            case .outcome(let outcome): outcome.update.url
            case .statement(let url, _, _): url
            }
        }
    }

    /// An outcome as the batch keeps it: a fetched feed's entries made into
    /// the document they are stored in, and let go.
    struct PendingOutcome {
        /// The outcome (a fetch's without its entries: the rule does not read them).
        var update: FeedUpdate
        /// A fetched feed's entries' dates (`StoredDates`), and its document (nil: the same
        /// bytes as stored, not sent again).
        var dates: [UInt8]?
        var document: [UInt8]?
        /// The lease it was recorded under (`record(_:fencedBy:)`): the write's fence.
        var lease: HostLease?
        /// The feed's first document: a row added to `feed_entries` (`+Statistics`).
        var addsDocument = false
    }

    /// A feed's row as the rule reads it: its record (`metadata` not read:
    /// only a fetch changes it, and replaces it whole) and its host.
    struct RecordRow {
        var record: FeedRecord
        var host: String
    }

    /// Every outcome recorded so far sent, and any that could not be stored thrown.
    func flushForCopy() throws(StateError) {
        if let failure = try commit().first { throw failure.value }
    }

    /// Outcomes a fence refused: counted, and their leases' keeper learns
    /// at once that they are lost (its process then stops asking their hosts).
    func drop(_ outcomes: [(url: String, lease: HostLease)]) {
        guard !outcomes.isEmpty else { return }
        dropped += outcomes.map(\.url)
        keeper?.lost(Set(outcomes.map(\.lease)).sorted { $0.host < $1.host })
    }

    public func record(_ update: FeedUpdate) throws(StateError) {
        try record(update, lease: nil)
    }

    /// An outcome written, or with a lease written while it holds (`SharedStateStore.record(_:fencedBy:)`).
    func record(_ update: FeedUpdate, lease: HostLease?) throws(StateError) {
        batch.append(.outcome(try pending(update, lease: lease)))
        if batch.count >= Self.batchLimit { try flush() }
    }

    public func record(all updates: [FeedUpdate]) throws(StateError) {
        try record(all: updates, leases: nil)
    }

    /// Every outcome written, or with leases each while its feed's holds.
    func record(all updates: [FeedUpdate], leases: [String: HostLease]?) throws(StateError) {
        guard !updates.isEmpty else { return }
        for update in updates {
            batch.append(.outcome(try pending(update, lease: leases?[update.url])))
            // Small outcomes (304s: timestamps), sent many to a transaction, in bounded memory.
            if batch.count >= Self.batchLimit * 16 { try flush() }
        }
        try flush(durable: true)
        defer { failures = [:] }
        if let failure = failures.min(by: { $0.key < $1.key }) { throw failure.value }
    }

    public func commit() throws(StateError) -> [String: StateError] {
        try flush(durable: true)
        cached = nil
        defer { failures = [:] }
        return failures
    }

    /// Sends the batch: one transaction (on a connection opened again if it
    /// was lost); refused, each outcome alone. An outcome that cannot be
    /// stored is kept in `failures` for `commit` to report (a lost
    /// connection: the whole batch); only a connection that cannot be opened
    /// again throws.
    /// - Parameter durable: the batch's commit (an empty batch: a write of
    ///   nothing, when commits were made since the last durable one) returns
    ///   only once it is on the server's disk, and with it every commit
    ///   before it: a run's end is durable, its middle need not wait.
    func flush(durable: Bool = false) throws(StateError) {
        if batch.isEmpty {
            guard durable && undurable else { return try reopenIfLost() }
            batch = [.statement(url: "", Statements.touch, [])]
        }
        defer { failures.removeValue(forKey: "") }  // the write of nothing fails alone, said by no feed
        let sending = batch
        batch = []
        unsent = [:]
        var stored = 0  // the outcomes sent alone that were stored
        do throws(StateError) {
            try reopenIfLost()
            var lost: [(url: String, lease: HostLease)] = []
            let refused: StateError?
            var added = 0
            do throws(StateError) {
                (refused, added) = try send(sending, durable: durable, lost: &lost)
            } catch {
                // The connection was found lost (a server restarted, a session ended): the batch
                // once more on a new one, its rows read again. (A connection lost during the commit
                // itself may have stored the batch: its outcomes are then applied twice, which
                // changes only a failure's count.)
                guard !connection.isOpen else { throw error }
                try reopenIfLost()
                lost = []
                (refused, added) = try send(sending, durable: durable, lost: &lost)
            }
            undurable = true
            guard refused != nil else {
                undurable = !durable
                drop(lost)
                noteAdded(added)
                return
            }
            for pending in sending {
                do throws(StateError) {
                    var lost: [(url: String, lease: HostLease)] = []
                    let (failure, added) = try send([pending], durable: false, lost: &lost)
                    if let failure { throw failure }
                    drop(lost)
                    noteAdded(added)
                } catch {
                    failures[pending.url] = error
                    if !connection.isOpen { throw error }
                }
                stored += 1
            }
        } catch {
            for pending in sending[stored...] where failures[pending.url] == nil { failures[pending.url] = error }
        }
    }

    /// One transaction: the outcomes' rows read and locked (one round trip),
    /// then every write and the commit (one more).
    /// - Parameter lost: the feeds whose writes their fence refused.
    /// - Returns: nil when all were stored, else the first failure (nothing was);
    ///   and the rows the writes add (new feeds, first documents).
    private func send(
        _ pending: [PendingWrite], durable: Bool, lost: inout [(url: String, lease: HostLease)]
    ) throws(StateError)
        -> (refused: StateError?, added: Int)
    {
        var urls: [String] = []
        var seen: Set<String> = []
        for case .outcome(let outcome) in pending where seen.insert(outcome.update.url).inserted {
            urls.append(outcome.update.url)
        }
        var rows: [String: RecordRow] = [:]
        var span = PostgreSQLConnection.Span.whole
        if !urls.isEmpty {
            var hosts: Set<String> = []
            for case .outcome(let outcome) in pending { if let lease = outcome.lease { hosts.insert(lease.host) } }
            // The fenced writes' lease rows locked first, in the hosts' order (`Statements.lockLeaseHosts`).
            let locks = hosts.isEmpty ? [] : [(Statements.lockLeaseHosts, [Parameter.texts(hosts.sorted())])]
            let read = try connection.pipeline(
                locks + [(Statements.selectRecordRows, [.texts(urls)])], durable: durable, span: .opening,
                row: { index, row throws(StateError) in
                    guard index == locks.count else { return }
                    let read = try Self.recordRow(row)
                    rows[read.record.url] = read
                })
            if let read { return (read, 0) }
            span = .closing
        }
        var writes: [(Statement, [Parameter])] = []
        var added = 0
        var fenced: [Int: (url: String, lease: HostLease)] = [:]
        for item in pending {
            switch item {
            case .statement(_, let statement, let parameters):
                writes.append((statement, parameters))
            case .outcome(let outcome):
                let url = outcome.update.url
                guard let (write, after) = Self.write(outcome, to: rows[url]) else { continue }
                if rows[url] == nil { added += 1 }
                if outcome.addsDocument { added += 1 }
                rows[url] = after
                if let lease = outcome.lease { fenced[writes.count] = (url, lease) }
                writes.append(write)
            }
        }
        let refused = try connection.pipeline(
            writes, durable: durable, span: span,
            affected: { index, count in if count == 0, let write = fenced[index] { lost.append(write) } })
        return (refused, added)
    }

    /// What an outcome makes of its feed's row (`FeedRecord.after`), as the
    /// statement that stores it; nil: nothing to store (a skipped feed the
    /// state does not know).
    private static func write(_ outcome: PendingOutcome, to row: RecordRow?) -> ((Statement, [Parameter]), RecordRow)? {
        let update = outcome.update
        guard let record = FeedRecord.after(update, from: row?.record) else { return nil }
        // A feed keeps the host it is fetched from until it moves.
        let host = update.movedTo.map(URLAuthority.host(of:)) ?? row?.host ?? URLAuthority.host(of: update.url)
        var statement: Statement
        var parameters: [Parameter]
        let kind = update.outcome.kind
        switch kind {
        case .skipped: statement = Statements.skipped
        case .notModified: statement = Statements.notModified
        case .failed: statement = Statements.failed
        case .fetched: statement = outcome.document == nil ? Statements.fetched : Statements.fetchedWithDocument
        }
        if kind == .skipped {
            parameters = [.text(update.url), .text(record.lastReport?.encoded)]
        } else {
            parameters =
                [.text(record.url), .integer(record.firstSeen.secondsSince1970), .text(host)]
                + FeedRecord.Field.allCases.map { value(of: $0, in: record) }
                + [outcome.dates, outcome.document].compactMap { $0.map(Parameter.bytes) }
        }
        if let lease = outcome.lease {
            statement = Statements.fencedVersion(of: statement)
            parameters += [.text(lease.host), .integer(lease.token)]
        }
        return ((statement, parameters), RecordRow(record: record, host: host))
    }

    /// The outcome as the batch keeps it, fenced by `lease` when there is one. A
    /// fetched feed's document is the stored one with the listing upserted
    /// (`FeedEntries.upsert`); under a lease it is always read (another process
    /// may have stored the feed since the records were read).
    private func pending(_ update: FeedUpdate, lease: HostLease?) throws(StateError) -> PendingOutcome {
        guard case .fetched(let entries, let etag, let lastModified, let metadata, let restamping) = update.outcome
        else { return PendingOutcome(update: update, lease: lease) }
        let now = update.now.secondsSince1970
        let before = try storedDocument(of: update.url, trustingRecordsRead: lease == nil)
        var document = before?.document ?? FeedEntries()
        document.upsert(entries, now: now)
        let bytes = document.document
        unsent[update.url] = bytes
        known?.insert(update.url)
        claimedWithNothingStored.remove(update.url)
        if cached?.url == update.url { cached = nil }
        var kept = update
        kept.outcome = .fetched(
            entries: .notKept, etag: etag, lastModified: lastModified, metadata: metadata, restamping: restamping)
        // The same bytes as stored (an unchanged listing fetched again at the same time): the record only.
        return PendingOutcome(
            update: kept, dates: document.dates(pivot: now).encoded, document: before?.bytes == bytes ? nil : bytes,
            lease: lease, addsDocument: before?.bytes == nil)
    }

    /// A row of `Statements.selectRecordRows`.
    /// - Throws: `.damaged` when a NOT NULL column is NULL.
    static func recordRow(_ row: Row) throws(StateError) -> RecordRow {
        func stamp(_ seconds: Int64) -> Timestamp { Timestamp(secondsSince1970: seconds) }
        var record = FeedRecord(
            url: try row.text(0, notNull: "feeds.url"),
            firstSeen: stamp(try row.integer(1, notNull: "feeds.first_seen")))
        record.movedTo = row.text(2)
        record.etag = row.text(3)
        record.lastModified = row.text(4)
        record.lastFetch = row.integer(5).map(stamp)
        record.lastSuccess = row.integer(6).map(stamp)
        record.lastStatus = row.integer(7).map { Int($0) }
        record.consecutiveFailures = Int(try row.integer(8, notNull: "feeds.consecutive_failures"))
        record.lastError = row.text(9)
        record.notBefore = row.integer(10).map(stamp)
        record.gone = try row.flag(11, notNull: "feeds.gone")
        record.title = row.text(12)
        record.link = row.text(13)
        record.restamping = try row.flag(14, notNull: "feeds.restamping")
        record.failingSince = row.integer(15).map(stamp)
        record.lastReport = row.text(16).flatMap(ReportedOutcome.init(encoded:))
        return RecordRow(record: record, host: try row.text(17, notNull: "feeds.host"))
    }

    /// A field's value as its column holds it.
    private static func value(of field: FeedRecord.Field, in record: FeedRecord) -> Parameter {
        switch field {
        case .movedTo: .text(record.movedTo)
        case .etag: .text(record.etag)
        case .lastModified: .text(record.lastModified)
        case .lastFetch: .integer(record.lastFetch?.secondsSince1970)
        case .lastSuccess: .integer(record.lastSuccess?.secondsSince1970)
        case .lastStatus: .integer(record.lastStatus.map(Int64.init))
        case .consecutiveFailures: .integer(Int64(record.consecutiveFailures))
        case .lastError: .text(record.lastError)
        case .notBefore: .integer(record.notBefore?.secondsSince1970)
        case .gone: .flag(record.gone)
        case .title: .text(record.title)
        case .link: .text(record.link)
        case .metadata: .bytes(record.metadata.map(FeedMetadataCodec.encode))
        case .restamping: .flag(record.restamping)
        case .failingSince: .integer(record.failingSince?.secondsSince1970)
        case .lastReport: .text(record.lastReport?.encoded)
        }
    }
}
