import Foundation
import Testing

@testable import FeedState
@testable import SQLiteState

/// A state file written by a newer feedmerge is refused, not read and written as if it were ours.
@Suite struct NewerSchemaTests {
    @Test func aNewerSchemaIsRefusedAndTheFileLeftAsItWas() throws {
        let w = try StateTests.Workspace("newer-schema")
        do {
            let store = try SQLiteStateStore(path: w.state)
            _ = try store.commit()
        }
        let current = SQLiteStateStore.migrations.count
        let database = try SQLiteDatabase(path: w.state)
        try database.execute("PRAGMA user_version = \(current + 1)")
        try database.execute("CREATE TABLE from_the_future (x)")
        do {
            _ = try SQLiteStateStore(path: w.state)
            Issue.record("a state of schema \(current + 1) was opened")
        } catch {
            #expect(error.message.contains("version \(current + 1), newer than this feedmerge's (\(current))"))
            #expect(error.path == w.state)
        }
        var version = 0
        try database.prepare("PRAGMA user_version").query { version = Int($0.integer(0) ?? 0) }
        #expect(version == current + 1)
    }

    @Test func theCommandExitsSeventyFourNamingTheFile() async throws {
        let w = try StateTests.Workspace("newer-schema-cli")
        do { _ = try SQLiteStateStore(path: w.state) }
        try SQLiteDatabase(path: w.state).execute("PRAGMA user_version = 999")
        try Data("<rss version=\"2.0\"><channel><title>x</title></channel></rss>".utf8)
            .write(to: URL(fileURLWithPath: w.path("feed.xml")))
        let run = try await CommandRun.feedmerge([w.path("feed.xml"), "-o", w.path("out.atom"), "--state", w.state])
        #expect(run.status == 74, "\(run.standardError)")
        #expect(run.standardError.contains(w.state) && run.standardError.contains("newer than this feedmerge"))
        #expect(!FileManager.default.fileExists(atPath: w.path("out.atom")))
    }
}
