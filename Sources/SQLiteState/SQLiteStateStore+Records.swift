import FeedModel
import FeedState

/// Reading a feed's record back from its row.
extension SQLiteStateStore {
    static let selectFeeds = """
        SELECT url, moved_to, etag, last_modified, first_seen, last_fetch, last_success, last_status,
               consecutive_failures, last_error, not_before, gone, title, link, restamping, metadata,
               failing_since, last_report FROM feeds
        """

    /// A record whose stored metadata cannot be read (a damaged blob) is
    /// given without its validators: the feed is fetched whole, which
    /// stores its metadata again, rather than served from a 304 without it.
    /// - Throws: `.damaged` when a NOT NULL column is NULL.
    static func feedRecord(_ row: Statement) throws(StateError) -> FeedRecord {
        let metadata =
            row.isNull(15)
            ? legacyMetadata(title: row.text(12), link: row.text(13)) : FeedMetadataCodec.decode(row.blob(15))
        let damaged = !row.isNull(15) && metadata == nil
        var record = FeedRecord(
            url: try row.text(0, notNull: "feeds.url"),
            firstSeen: stamp(try row.integer(4, notNull: "feeds.first_seen")))
        record.movedTo = row.text(1)
        record.etag = damaged ? nil : row.text(2)
        record.lastModified = damaged ? nil : row.text(3)
        record.lastFetch = row.integer(5).map(stamp)
        record.lastSuccess = row.integer(6).map(stamp)
        record.lastStatus = row.integer(7).map { Int($0) }
        record.consecutiveFailures = Int(try row.integer(8, notNull: "feeds.consecutive_failures"))
        record.lastError = row.text(9)
        record.notBefore = row.integer(10).map(stamp)
        record.gone = try row.integer(11, notNull: "feeds.gone") == 1
        record.title = row.text(12)
        record.link = row.text(13)
        record.metadata = metadata
        record.restamping = try row.integer(14, notNull: "feeds.restamping") == 1
        record.failingSince = row.integer(16).map(stamp)
        record.lastReport = row.text(17).flatMap(ReportedOutcome.init(encoded:))
        return record
    }

    /// What a record stored before schema 2 knows of its feed.
    private static func legacyMetadata(title: String?, link: String?) -> FeedMetadata? {
        guard title != nil || link != nil else { return nil }
        var metadata = FeedMetadata()
        metadata.title = title.map { Text($0) }
        metadata.link = link
        return metadata
    }
}
