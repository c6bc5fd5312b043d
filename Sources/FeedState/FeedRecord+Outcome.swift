import FeedModel

extension FeedRecord {
    /// How an outcome changes a feed's record: the one rule every store
    /// keeps. A store reads the record, applies this, and writes the result
    /// whole (SQL may guard that write by a lease's token, never decide it).
    ///
    /// Every outcome but `.skipped` notes the fetch (its time, status,
    /// `notBefore`, a move); a fetched feed's validators, metadata and
    /// restamping replace the stored ones and end its failing; a 304 ends
    /// the failing and keeps the stored validators it did not replace; a
    /// failure counts, and a 410 makes the feed gone for good (a fetch
    /// brings it back). How the run reported the feed replaces the stored
    /// report when it says one.
    /// - Parameter record: the feed's record before (nil: the state has none).
    /// - Returns: the record after; nil when the state keeps nothing of the
    ///   outcome (a feed not asked that the state does not know).
    public static func after(_ update: FeedUpdate, from record: FeedRecord?) -> FeedRecord? {
        if case .skipped = update.outcome {
            guard var record else { return nil }
            record.lastReport = update.reported ?? record.lastReport
            return record
        }
        let now = update.now
        var record = record ?? FeedRecord(url: update.url, firstSeen: now)
        record.lastReport = update.reported ?? record.lastReport
        record.lastFetch = now
        record.lastStatus = update.status
        record.notBefore = update.notBefore
        record.movedTo = update.movedTo ?? record.movedTo
        switch update.outcome {
        case .fetched(_, let etag, let lastModified, let metadata, let restamping):
            record.etag = etag
            record.lastModified = lastModified
            record.succeeded(at: now)
            record.gone = false
            record.title = metadata.title?.value ?? record.title
            record.link = metadata.link ?? record.link
            record.metadata = metadata
            record.restamping = restamping
        case .notModified(let etag, let lastModified):
            record.etag = etag ?? record.etag
            record.lastModified = lastModified ?? record.lastModified
            record.succeeded(at: now)
        case .skipped:
            break
        case .failed(let message, let gone):
            record.consecutiveFailures += 1
            record.failingSince = record.failingSince ?? now
            record.lastError = message
            record.gone = record.gone || gone
        }
        return record
    }

    private mutating func succeeded(at now: Timestamp) {
        lastSuccess = now
        consecutiveFailures = 0
        failingSince = nil
        lastError = nil
    }
}

extension FeedRecord {
    /// A field of a record that `after` may change (a record keeps its `url`
    /// and `firstSeen`; the shared state's fields are its store's own).
    /// Each raw value is the column that holds the field in an SQL store's `feeds` table.
    public enum Field: String, CaseIterable, Sendable {
        case movedTo = "moved_to", etag, lastModified = "last_modified", lastFetch = "last_fetch"
        case lastSuccess = "last_success", lastStatus = "last_status"
        case consecutiveFailures = "consecutive_failures", lastError = "last_error"
        case notBefore = "not_before", gone, title, link, metadata, restamping
        case failingSince = "failing_since", lastReport = "last_report"
    }

    /// The fields `after` may change on a stored record for an outcome of
    /// this kind: what a store writes back (a first record is written whole).
    /// Only a fetch changes `metadata`, and replaces it whole: a store need
    /// not read the stored metadata to apply the rule.
    public static func fields(changedBy kind: FeedUpdate.Outcome.Kind) -> [Field] {
        let noted: [Field] = [.lastFetch, .lastStatus, .notBefore, .movedTo, .lastReport]
        let succeeded: [Field] = [.etag, .lastModified, .lastSuccess, .consecutiveFailures, .failingSince, .lastError]
        switch kind {
        case .fetched: return noted + succeeded + [.gone, .title, .link, .metadata, .restamping]
        case .notModified: return noted + succeeded
        case .skipped: return [.lastReport]
        case .failed: return noted + [.consecutiveFailures, .failingSince, .lastError, .gone]
        }
    }
}

extension FeedUpdate.Outcome {
    /// An outcome's kind, without what it carries.
    public enum Kind: CaseIterable, Sendable {
        case fetched, notModified, skipped, failed
    }

    public var kind: Kind {
        switch self {
        case .fetched: .fetched
        case .notModified: .notModified
        case .skipped: .skipped
        case .failed: .failed
        }
    }
}
