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
