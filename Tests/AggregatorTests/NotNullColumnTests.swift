import Foundation
import TestSupport
import Testing

@testable import FeedState
@testable import PostgreSQLState
@testable import SQLiteState

/// A NOT NULL column read as NULL is a damaged state that names its column,
/// never a default; a value reads as itself.
@Suite struct NotNullColumnTests {
    @Test func sqliteReadsANullWhereTheSchemaForbidsItAsDamage() throws {
        let w = try StateTests.Workspace("not-null-sqlite")
        let database = try SQLiteDatabase(path: w.path("state.sqlite"))
        var caught: StateError?
        do throws(StateError) {
            try database.prepare("SELECT 7, NULL").query { row throws(StateError) in
                #expect(try row.integer(0, notNull: "feeds.id") == 7)
                _ = try row.text(1, notNull: "feeds.url")
            }
        } catch {
            caught = error
        }
        #expect(caught?.kind == .damaged)
        #expect(caught?.message.hasPrefix("feeds.url is NULL") == true, "\(String(describing: caught))")
    }

    @Test func postgreSQLReadsANullWhereTheSchemaForbidsItAsDamage() async throws {
        let connection = try await PostgreSQLConnection(PostgreSQLServer.shared.database())
        try connection.query("SELECT -2::int2, 70000::int4, -5000000000::int8, true, 'u'::text") {
            row throws(StateError) in
            #expect(try row.integer(0, notNull: "a") == -2)
            #expect(try row.integer(1, notNull: "b") == 70_000)
            #expect(try row.integer(2, notNull: "c") == -5_000_000_000)
            #expect(try row.flag(3, notNull: "d"))
            #expect(try row.text(4, notNull: "e") == "u")
        }
        for (type, column) in [("bigint", "feeds.first_seen"), ("text", "feeds.url"), ("boolean", "feeds.gone")] {
            var caught: StateError?
            do throws(StateError) {
                try connection.query("SELECT NULL::\(type)") { row throws(StateError) in
                    switch type {
                    case "bigint": _ = try row.integer(0, notNull: column)
                    case "text": _ = try row.text(0, notNull: column)
                    default: _ = try row.flag(0, notNull: column)
                    }
                }
            } catch {
                caught = error
            }
            #expect(caught?.kind == .damaged, "\(type)")
            #expect(caught?.message.hasPrefix("\(column) is NULL") == true, "\(String(describing: caught))")
        }
    }
}
