import FeedModel
import Foundation
import TestSupport
import Testing

@testable import FeedState
@testable import PostgreSQLState
@testable import SQLiteState

/// The stores on a disk or a server write `FeedRecord.after`'s result: what
/// it does not change stays as stored, byte for byte, even where the store
/// cannot read it (a damaged metadata blob) or reads it as something else
/// (a record from before the metadata column).
@Suite struct RecordRuleStoreTests {
    static let url = "http://a.example/feed.xml"

    /// A store with its tables reached directly: a statement run, and a query's first row as text.
    struct Opened {
        let store: any StateStore
        let execute: (String) throws -> Void
        let row: (String) throws -> [String?]
    }

    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgreSQL
        var testDescription: String { rawValue }

        /// `hex`: the SQL that gives a blob column as lowercase hexadecimal.
        func open(in workspace: StateTests.Workspace) async throws -> (Opened, hex: (String) -> String) {
            switch self {
            case .sqlite:
                let store = try SQLiteStateStore(path: workspace.state)
                let opened = Opened(
                    store: store, execute: { sql in try store.database.execute(sql) },
                    row: { sql in
                        var values: [String?] = []
                        try store.database.prepare(sql).query { row in
                            values = (0..<3).map { row.text(Int32($0)) }
                        }
                        return values
                    })
                return (opened, { "nullif(lower(hex(\($0))), '')" })
            case .postgreSQL:
                let store = try PostgreSQLStateStore(connecting: await PostgreSQLServer.shared.database())
                let opened = Opened(
                    store: store, execute: { sql in try store.connection.execute(sql) },
                    row: { sql in
                        var values: [String?] = []
                        try store.connection.query(sql) { row in values = (0..<3).map { row.text(Int32($0)) } }
                        return values
                    })
                return (opened, { "encode(\($0), 'hex')" })
            }
        }
    }

    static func time(_ seconds: Int64) -> Timestamp { Timestamp(secondsSince1970: 1_700_000_000 + seconds) }

    static func fetched(at seconds: Int64) -> FeedUpdate {
        var metadata = FeedMetadata()
        metadata.title = Text("Feed")
        metadata.link = "http://example.com/"
        return FeedUpdate(
            url: url,
            outcome: .fetched(
                entries: PreparedEntries([]), etag: "\"1\"", lastModified: "Tue", metadata: metadata,
                restamping: false),
            status: 200, movedTo: nil, notBefore: nil, now: time(seconds))
    }

    static func notModified(at seconds: Int64, movedTo: String? = nil) -> FeedUpdate {
        FeedUpdate(
            url: url, outcome: .notModified(etag: nil, lastModified: nil), status: 304, movedTo: movedTo,
            notBefore: nil, now: time(seconds))
    }

    static func failed(at seconds: Int64) -> FeedUpdate {
        FeedUpdate(
            url: url, outcome: .failed(message: "HTTP 500", gone: false), status: 500, movedTo: nil, notBefore: nil,
            now: time(seconds))
    }

    @Test(arguments: Kind.allCases)
    func aDamagedMetadataBlobAndItsValidatorsStayAsStoredUntilAFetch(_ kind: Kind) async throws {
        let workspace = try StateTests.Workspace("rule-damaged-\(kind)")
        let (opened, hex) = try await kind.open(in: workspace)
        let store = opened.store
        try store.record(Self.fetched(at: 0))
        #expect(try store.commit().isEmpty)
        try opened.execute("UPDATE feeds SET metadata = " + (kind == .sqlite ? "X'FFFF'" : "'\\xffff'::bytea"))
        #expect(try store.feed(Self.url)?.etag == nil, "damaged: read without its validators")
        try store.record(all: [Self.notModified(at: 1)])
        try store.record(Self.failed(at: 2))
        #expect(try store.commit().isEmpty)
        let columns = "SELECT \(hex("metadata")), etag, last_modified FROM feeds"
        #expect(
            try opened.row(columns) == ["ffff", "\"1\"", "Tue"], "\(kind): the row keeps what the rule did not change")
        let record = try #require(try store.feed(Self.url))
        #expect(record.etag == nil && record.metadata == nil, "\(kind): read as damaged still")
        #expect(record.lastSuccess == Self.time(1) && record.consecutiveFailures == 1)
        try store.record(Self.fetched(at: 3))
        #expect(try store.commit().isEmpty)
        #expect(try store.feed(Self.url)?.etag == "\"1\"" && store.feed(Self.url)?.metadata?.title?.value == "Feed")
    }

    @Test(arguments: Kind.allCases)
    func aRecordFromBeforeTheMetadataColumnReadsTheSameAfterA304(_ kind: Kind) async throws {
        let workspace = try StateTests.Workspace("rule-legacy-\(kind)")
        let (opened, hex) = try await kind.open(in: workspace)
        let store = opened.store
        try store.record(Self.fetched(at: 0))
        #expect(try store.commit().isEmpty)
        try opened.execute("UPDATE feeds SET metadata = NULL, title = 'Old', link = 'http://old.example/'")
        let before = try store.feed(Self.url)?.metadata
        try store.record(all: [Self.notModified(at: 1)])
        try store.record(Self.failed(at: 2))
        #expect(try store.commit().isEmpty)
        #expect(
            try opened.row("SELECT \(hex("metadata")), title, link FROM feeds") == [nil, "Old", "http://old.example/"])
        #expect(try store.feed(Self.url)?.metadata == before, "\(kind)")
        // (SQLite's records can be older than the column: their metadata is their title and link.)
        if kind == .sqlite { #expect(before?.title?.value == "Old" && before?.link == "http://old.example/") }
    }

    /// A feed's host (PostgreSQL's, for the leases) is the one it is fetched from: a move's.
    @Test func aMovedFeedsHostIsItsNewOnesUntilItMovesAgain() async throws {
        let store = try PostgreSQLStateStore(connecting: await PostgreSQLServer.shared.database())
        func host() throws -> String? {
            var host: String?
            try store.connection.query("SELECT host FROM feeds") { host = $0.text(0) }
            return host
        }
        try store.record(Self.fetched(at: 0))
        #expect(try store.commit().isEmpty)
        #expect(try host() == "a.example")
        try store.record(all: [Self.notModified(at: 1, movedTo: "http://B.example:80/feed.xml")])
        #expect(try host() == "b.example")
        try store.record(Self.failed(at: 2))
        #expect(try store.commit().isEmpty)
        #expect(try host() == "b.example", "an outcome that names no move keeps the host")
        #expect(try store.feed(Self.url)?.movedTo == "http://B.example:80/feed.xml")
    }

    /// What a store writes back for an outcome (`FeedRecord.fields(changedBy:)`) is all the rule changes.
    @Test func theRuleChangesOnlyTheFieldsItsOutcomeKindNames() throws {
        var stored = FeedRecord(url: Self.url, firstSeen: Self.time(-100))
        stored.movedTo = "http://old.example/"
        stored.etag = "\"0\""
        stored.lastModified = "Mon"
        stored.lastFetch = Self.time(-50)
        stored.lastSuccess = Self.time(-60)
        stored.lastStatus = 500
        stored.consecutiveFailures = 3
        stored.lastError = "HTTP 500"
        stored.notBefore = Self.time(-40)
        stored.title = "Stored"
        stored.link = "http://stored.example/"
        stored.restamping = true
        stored.failingSince = Self.time(-55)
        stored.lastReport = ReportedOutcome(status: "failed", entriesInFeed: 0, reason: "HTTP 500")
        var metadata = FeedMetadata()
        metadata.title = Text("Stored")
        stored.metadata = metadata
        var reported = Self.failed(at: 1)
        reported.reported = ReportedOutcome(status: "failed", entriesInFeed: 0, reason: "x")
        var gone = Self.failed(at: 1)
        gone.outcome = .failed(message: "HTTP 410", gone: true)
        var skipped = Self.failed(at: 1)
        skipped.outcome = .skipped
        skipped.reported = ReportedOutcome(status: "deferred", entriesInFeed: 0, reason: nil)
        let updates = [
            Self.fetched(at: 1), Self.notModified(at: 1, movedTo: "http://new.example/"), reported, gone, skipped,
        ]
        for update in updates {
            let after = try #require(FeedRecord.after(update, from: stored))
            let changed = FeedRecord.Field.allCases.filter {
                Self.describe($0, of: after) != Self.describe($0, of: stored)
            }
            let allowed = FeedRecord.fields(changedBy: update.outcome.kind)
            #expect(changed.allSatisfy(allowed.contains), "\(update.outcome.kind): \(changed)")
            #expect(after.url == stored.url && after.firstSeen == stored.firstSeen)
        }
    }

    private static func describe(_ field: FeedRecord.Field, of record: FeedRecord) -> String {
        switch field {
        case .movedTo: "\(record.movedTo as Any)"
        case .etag: "\(record.etag as Any)"
        case .lastModified: "\(record.lastModified as Any)"
        case .lastFetch: "\(record.lastFetch as Any)"
        case .lastSuccess: "\(record.lastSuccess as Any)"
        case .lastStatus: "\(record.lastStatus as Any)"
        case .consecutiveFailures: "\(record.consecutiveFailures)"
        case .lastError: "\(record.lastError as Any)"
        case .notBefore: "\(record.notBefore as Any)"
        case .gone: "\(record.gone)"
        case .title: "\(record.title as Any)"
        case .link: "\(record.link as Any)"
        case .metadata: "\(record.metadata as Any)"
        case .restamping: "\(record.restamping)"
        case .failingSince: "\(record.failingSince as Any)"
        case .lastReport: "\(record.lastReport as Any)"
        }
    }
}
