import FeedModel
import FeedState

/// The whole state out of and into a SQLite file (`CopyableStateStore`).
extension SQLiteStateStore: CopyableStateStore {
    public func exportFeeds(_ body: (FeedSnapshot) throws(StateError) -> Void) throws(StateError) {
        try writer.flush()
        var urls: [String] = []
        try database.prepare("SELECT url FROM feeds ORDER BY url").query { row throws(StateError) in
            urls.append(try row.text(0, notNull: "feeds.url"))
        }
        let select = try database.prepare(
            Self.selectFeeds.replacingOccurrences(
                of: " FROM feeds",
                with: ", entry_dates, "
                    + "(SELECT document FROM feed_entries WHERE feed = feeds.id) FROM feeds") + " WHERE url = ?")
        for url in urls {
            var snapshot: FeedSnapshot?
            try select.query([.text(url)]) { row throws(StateError) in
                snapshot = FeedSnapshot(
                    record: try Self.feedRecord(row), document: row.isNull(19) ? nil : row.blob(19),
                    dates: row.isNull(18) ? nil : StoredDates(encoded: row.blob(18)))
            }
            if let snapshot { try body(snapshot) }
        }
    }

    public func importFeeds(_ feeds: [FeedSnapshot]) throws(StateError) {
        try writer.flush()
        let insert = try database.prepare(
            """
            INSERT INTO feeds(url, moved_to, etag, last_modified, first_seen, last_fetch, last_success, last_status,
                consecutive_failures, last_error, not_before, gone, title, link, restamping, metadata, failing_since,
                last_report)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
            """)
        try database.transaction { () throws(StateError) in
            for feed in feeds {
                let r = feed.record
                var id: Int64 = 0
                try insert.query([
                    .text(r.url), .text(r.movedTo), .text(r.etag), .text(r.lastModified),
                    .integer(r.firstSeen.secondsSince1970), .integer(r.lastFetch?.secondsSince1970),
                    .integer(r.lastSuccess?.secondsSince1970), .integer(r.lastStatus.map(Int64.init)),
                    .integer(Int64(r.consecutiveFailures)), .text(r.lastError), .integer(r.notBefore?.secondsSince1970),
                    .integer(r.gone ? 1 : 0), .text(r.title), .text(r.link), .integer(r.restamping ? 1 : 0),
                    r.metadata.map { .blob(FeedMetadataCodec.encode($0)) } ?? .text(nil),
                    .integer(r.failingSince?.secondsSince1970), .text(r.lastReport?.encoded),
                ]) { row throws(StateError) in id = try row.integer(0, notNull: "feeds.id") }
                if let document = feed.document {
                    try database.prepare("INSERT INTO feed_entries(feed, document) VALUES (?, ?)")
                        .run([.integer(id), .blob(document)])
                }
                // After the document, whose triggers forget the facts.
                if let dates = feed.dates {
                    try database.prepare("UPDATE feeds SET entry_dates = ? WHERE id = ?")
                        .run([.blob(dates.encoded), .integer(id)])
                }
            }
        }
    }

    public func lastFullPrune() throws(StateError) -> Int64 {
        var value: Int64 = 0
        // (`meta.value` may be NULL in a file: read as never, as no row is.)
        try database.prepare("SELECT value FROM meta WHERE name = 'last_full_prune'").query {
            value = $0.integer(0) ?? 0
        }
        return value
    }

    public func setLastFullPrune(_ time: Int64) throws(StateError) {
        try database.prepare("INSERT OR REPLACE INTO meta(name, value) VALUES ('last_full_prune', ?)")
            .run([.integer(time)])
    }
}

/// The merged feed's id, in `meta` as the 64 bits of its hash (`merged_feed_id`).
extension SQLiteStateStore {
    public func mergedFeedID() throws(StateError) -> UInt64? {
        var value: UInt64?
        try database.prepare("SELECT value FROM meta WHERE name = 'merged_feed_id'").query {
            value = $0.integer(0).map { UInt64(bitPattern: $0) }
        }
        return value
    }

    public func keepMergedFeedID(_ id: UInt64) throws(StateError) -> UInt64 {
        try writer.flush()
        try database.prepare("INSERT OR IGNORE INTO meta(name, value) VALUES ('merged_feed_id', ?)")
            .run([.integer(Int64(bitPattern: id))])
        return try mergedFeedID() ?? id
    }
}
