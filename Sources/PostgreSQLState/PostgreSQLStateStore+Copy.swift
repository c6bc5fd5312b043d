import Basics
import FeedModel
import FeedState

/// The whole state out of and into a PostgreSQL database (`CopyableStateStore`).
extension PostgreSQLStateStore: CopyableStateStore {
    public func exportFeeds(_ body: (FeedSnapshot) throws(StateError) -> Void) throws(StateError) {
        try flushForCopy()
        var urls: [String] = []
        try connection.query("SELECT url FROM feeds ORDER BY url COLLATE \"C\"") { row throws(StateError) in
            urls.append(try row.text(0, notNull: "feeds.url"))
        }
        for url in urls {
            var snapshot: FeedSnapshot?
            try connection.query(Statements.selectSnapshot, [.text(url)]) { row throws(StateError) in
                var record = try Self.feedRecord(row)
                record.lastReport = row.text(19).flatMap(ReportedOutcome.init(encoded:))
                snapshot = FeedSnapshot(
                    record: record, document: row.bytes(18), dates: row.bytes(17).flatMap(StoredDates.init(encoded:)))
            }
            if let snapshot { try body(snapshot) }
        }
    }

    public func importFeeds(_ feeds: [FeedSnapshot]) throws(StateError) {
        try flushForCopy()
        let writes: [(Statement, [Parameter])] = feeds.map { feed in
            let r = feed.record
            return (
                Statements.insertSnapshot,
                [
                    .text(r.url), .text(r.movedTo), .text(r.etag), .text(r.lastModified),
                    .integer(r.firstSeen.secondsSince1970), .integer(r.lastFetch?.secondsSince1970),
                    .integer(r.lastSuccess?.secondsSince1970), .integer(r.lastStatus.map(Int64.init)),
                    .integer(Int64(r.consecutiveFailures)), .text(r.lastError), .integer(r.notBefore?.secondsSince1970),
                    .flag(r.gone), .text(r.title), .text(r.link), .flag(r.restamping),
                    .bytes(r.metadata.map(FeedMetadataCodec.encode)), .integer(r.failingSince?.secondsSince1970),
                    .bytes(feed.dates?.encoded), .bytes(feed.document),
                    .text(URLAuthority.host(of: r.movedTo ?? r.url)), .text(r.lastReport?.encoded),
                ]
            )
        }
        if let failure = try connection.pipeline(writes, durable: true) { throw failure }
        // An imported feed has a document to read (`known`: the feeds whose document is read).
        known?.formUnion(feeds.map(\.record.url))
    }

    public func lastFullPrune() throws(StateError) -> Int64 {
        try lastFullPruneRead()
    }

    /// When the last full prune was (0: never), read once more on a new connection if the connection is lost.
    func lastFullPruneRead() throws(StateError) -> Int64 {
        try retrying { () throws(StateError) in
            var value: Int64 = 0
            try connection.query(Statements.lastFullPrune) { row throws(StateError) in
                value = try row.integer(0, notNull: "meta.value")
            }
            return value
        }
    }

    public func setLastFullPrune(_ time: Int64) throws(StateError) {
        try connection.query(Statements.noteFullPrune, [.integer(time)])
    }
}

/// The merged feed's id, in `meta` as the 64 bits of its hash (`merged_feed_id`).
extension PostgreSQLStateStore {
    public func mergedFeedID() throws(StateError) -> UInt64? {
        try retrying { () throws(StateError) in
            var value: UInt64?
            try connection.query(Statements.mergedFeedID) { value = $0.integer(0).map { UInt64(bitPattern: $0) } }
            return value
        }
    }

    /// The first to keep one wins, among processes too (`ON CONFLICT DO NOTHING`): when this
    /// insert wrote no row, the id another kept first is read.
    public func keepMergedFeedID(_ id: UInt64) throws(StateError) -> UInt64 {
        let inserted = try retrying { () throws(StateError) in
            try connection.query(Statements.keepMergedFeedID, [.integer(Int64(bitPattern: id))])
        }
        return inserted == 1 ? id : try mergedFeedID() ?? id
    }
}
