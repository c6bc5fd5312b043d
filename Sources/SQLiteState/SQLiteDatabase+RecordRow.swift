import FeedModel
import FeedState

/// A feed's row as `FeedRecord.after` reads and writes it: the record's
/// fields as plain values, its metadata never decoded (only a fetch changes
/// it, and replaces it whole), its validators as stored (a record whose
/// metadata blob is damaged is read without them, `SQLiteStateStore.feedRecord`,
/// and a 304 must not drop them from the row).
extension SQLiteDatabase {
    /// A feed's row number and its record, as the rule reads it (its metadata blob not read).
    struct RecordRow {
        var id: Int64
        var record: FeedRecord
    }

    /// `SQLiteStateStore.selectFeeds`'s columns, read by its `feedRecord`, with the metadata
    /// column left out (NULL in its place) and the row's number last.
    private static let selectRecordRow = """
        SELECT url, moved_to, etag, last_modified, first_seen, last_fetch, last_success, last_status,
               consecutive_failures, last_error, not_before, gone, title, link, restamping, NULL,
               failing_since, last_report, id FROM feeds
        """

    /// A feed's row, read in the transaction that writes it; nil: the state has none.
    func recordRow(of url: String) throws(StateError) -> RecordRow? {
        var result: RecordRow?
        try prepare(Self.selectRecordRow + " WHERE url = ?").query([.text(url)]) { row throws(StateError) in
            result = try Self.recordRow(row)
        }
        return result
    }

    /// How many feeds `recordRows(of:)` reads in one query.
    static let rowsPerQuery = 64

    /// The rows of several feeds by URL, `rowsPerQuery` to a query.
    func recordRows(of urls: [String]) throws(StateError) -> [String: RecordRow] {
        let statement = try prepare(
            Self.selectRecordRow + " WHERE url IN ("
                + Array(repeating: "?", count: Self.rowsPerQuery).joined(
                    separator: ", ") + ")")
        var result: [String: RecordRow] = [:]
        for start in stride(from: 0, to: urls.count, by: Self.rowsPerQuery) {
            let part = urls[start..<min(start + Self.rowsPerQuery, urls.count)]
            // (NULL matches no URL: a short part is padded with it.)
            let values =
                part.map { Statement.Value.text($0) }
                + Array(repeating: .text(nil), count: Self.rowsPerQuery - part.count)
            try statement.query(values) { row throws(StateError) in
                let read = try Self.recordRow(row)
                result[read.record.url] = read
            }
        }
        return result
    }

    private static func recordRow(_ row: Statement) throws(StateError) -> RecordRow {
        RecordRow(id: try row.integer(18, notNull: "feeds.id"), record: try SQLiteStateStore.feedRecord(row))
    }

    /// Writes the fields an outcome of this kind may change (`FeedRecord.fields(changedBy:)`)
    /// into the feed's row, as they are in `record`.
    func write(_ record: FeedRecord, changedBy kind: FeedUpdate.Outcome.Kind, row id: Int64) throws(StateError) {
        let fields = FeedRecord.fields(changedBy: kind)
        try prepare(Self.updates[kind] ?? "").run(fields.map { Self.value(of: $0, in: record) } + [.integer(id)])
    }

    /// A first record, written whole.
    /// - Returns: its row's number.
    func insert(_ record: FeedRecord) throws(StateError) -> Int64 {
        var id: Int64 = 0
        try prepare(Self.insert).query(
            [.text(record.url), .integer(record.firstSeen.secondsSince1970)]
                + FeedRecord.Field.allCases.map { Self.value(of: $0, in: record) }
        ) { row throws(StateError) in id = try row.integer(0, notNull: "feeds.id") }
        return id
    }

    private static let insert = """
        INSERT INTO feeds(url, first_seen, \(FeedRecord.Field.allCases.map(\.rawValue).joined(separator: ", ")))
        VALUES (\(Array(repeating: "?", count: FeedRecord.Field.allCases.count + 2).joined(separator: ", ")))
        RETURNING id
        """

    /// Each kind's `UPDATE`, its fields in `fields(changedBy:)`'s order, then the row's number.
    private static let updates: [FeedUpdate.Outcome.Kind: String] = Dictionary(
        uniqueKeysWithValues: FeedUpdate.Outcome.Kind.allCases.map { kind in
            let fields = FeedRecord.fields(changedBy: kind)
            return (
                kind, "UPDATE feeds SET \(fields.map { $0.rawValue + " = ?" }.joined(separator: ", ")) WHERE id = ?"
            )
        })

    private static func value(of field: FeedRecord.Field, in record: FeedRecord) -> Statement.Value {
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
        case .gone: .integer(record.gone ? 1 : 0)
        case .title: .text(record.title)
        case .link: .text(record.link)
        case .metadata: record.metadata.map { .blob(FeedMetadataCodec.encode($0)) } ?? .integer(nil)
        case .restamping: .integer(record.restamping ? 1 : 0)
        case .failingSince: .integer(record.failingSince?.secondsSince1970)
        case .lastReport: .text(record.lastReport?.encoded)
        }
    }
}
