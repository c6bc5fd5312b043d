import FeedFetch
import FeedModel
import FeedState
import Foundation
import PostgreSQLState
import TestSupport
import Testing

@testable import Commands

/// A state on a PostgreSQL server, through the command line: what a user
/// sees when the server cannot be reached, refuses them, lacks the
/// database, or goes away during a run: one line with libpq's reason and
/// the exit status of the table, and outputs still written from what the
/// run fetched.
@Suite struct PostgreSQLStateTests {
    let server = PostgreSQLServer.shared

    /// A feed file and the arguments of a run that writes it to `out.json` with `state`.
    func run(_ w: StateTests.Workspace, state: String, environment: [String: String] = [:]) async throws -> CommandRun {
        let feed = w.path("feed.rss")
        if !FileManager.default.fileExists(atPath: feed) {
            let items = (1...3).map { "<item><guid>urn:pg:\($0)</guid><title>Item \($0)</title></item>" }.joined()
            try Data("<rss version=\"2.0\"><channel><title>P</title>\(items)</channel></rss>".utf8)
                .write(to: URL(fileURLWithPath: feed))
        }
        return try await CommandRun.feedmerge(
            [feed, "-o", w.path("out.json"), "--now", "2024-02-01T00:00:00Z", "--state", state, "-q"],
            environment: environment)
    }

    @Test func aServerThatCannotBeReachedIsOneLineAndExit74() async throws {
        let w = try StateTests.Workspace("pg-unreachable")
        let result = try await run(w, state: "host=\(w.path("no-server-here")) user=postgres dbname=x")
        #expect(result.status == 74, "\(result.standardError)")
        #expect(result.standardError.contains("cannot connect"), "\(result.standardError)")
        #expect(result.standardError.contains("No such file or directory"), "libpq's reason: \(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: w.path("out.json")), "nothing is written")
    }

    @Test func aRefusedPasswordIsLibpqsReasonAndExit74() async throws {
        let w = try StateTests.Workspace("pg-password")
        let database = await server.database()
        let wrong = try await run(
            w,
            state: server.connectionString(
                database: database.split(separator: "=").last.map(String.init) ?? "",
                user: "feedmerge_password") + " password=wrong")
        #expect(wrong.status == 74, "\(wrong.standardError)")
        #expect(wrong.standardError.contains("password authentication failed"), "\(wrong.standardError)")
        #expect(!wrong.standardError.contains("wrong"), "the password is never printed: \(wrong.standardError)")
    }

    /// libpq's own variables work as libpq documents them (here PGPASSWORD).
    @Test func libpqsVariablesAreRead() async throws {
        let w = try StateTests.Workspace("pg-variables")
        let database = await server.database()
        let name = database.split(separator: "=").last.map(String.init) ?? ""
        try await PostgreSQLServer.psql(database, "GRANT CREATE ON SCHEMA public TO feedmerge_password")
        let result = try await run(
            w, state: "postgresql:///\(name)",
            environment: ["PGHOST": server.socketFolder, "PGUSER": "feedmerge_password", "PGPASSWORD": "right"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try await PostgreSQLServer.psql(database, "SELECT count(*) FROM feeds") == "1")
    }

    @Test func aMissingDatabaseIsSaidSoAndExit74() async throws {
        let w = try StateTests.Workspace("pg-missing")
        let result = try await run(w, state: server.connectionString(database: "no_such_database"))
        #expect(result.status == 74, "\(result.standardError)")
        #expect(
            result.standardError.contains("database \"no_such_database\" does not exist"), "\(result.standardError)")
    }

    /// A role that may not create the tables: the state cannot be created (73).
    @Test func tablesThatCannotBeCreatedAreExit73() async throws {
        let w = try StateTests.Workspace("pg-no-create")
        let database = await server.database()
        let name = database.split(separator: "=").last.map(String.init) ?? ""
        let result = try await run(w, state: server.connectionString(database: name, user: "feedmerge_reader"))
        #expect(result.status == 73, "\(result.standardError)")
        #expect(result.standardError.contains("permission denied"), "\(result.standardError)")
    }

    /// Runs share a PostgreSQL state: a feed whose host another process
    /// holds is served from the state, and fetched once that host is free.
    @Test func aFeedWhoseHostAnotherProcessHoldsIsServedFromTheState() async throws {
        let w = try StateTests.Workspace("pg-held")
        let database = await server.database()
        #expect(try await run(w, state: database).status == 0)
        do {
            let holder = try PostgreSQLStateStore(connecting: database)
            let claims = try holder.claim(
                ClaimRequest(
                    scope: .feeds([w.path("feed.rss")]), hosts: 10, holder: "another", leaseSeconds: 60,
                    now: Timestamp(secondsSince1970: 1_706_745_600)))
            #expect(claims.count == 1)
            let result = try await CommandRun.feedmerge([
                w.path("feed.rss"), "-o", w.path("out.json"), "--now", "2024-02-02T00:00:00Z", "--state", database,
                "-q",
            ])
            #expect(result.status == 0, "\(result.standardError)")
            let written = try String(contentsOfFile: w.path("out.json"), encoding: .utf8)
            #expect(written.contains("urn:pg:3"), "its stored entries: \(written)")
            #expect(
                try await PostgreSQLServer.psql(database, "SELECT last_fetch FROM feeds") == "1706745600",
                "the first run fetched it; the second did not")
            withExtendedLifetime(holder) {}
        }
    }

    @Test func aNewerSchemaIsRefused() async throws {
        let w = try StateTests.Workspace("pg-newer")
        let database = await server.database()
        #expect(try await run(w, state: database).status == 0)
        try await PostgreSQLServer.psql(database, "UPDATE meta SET value = 99 WHERE name = 'schema_version'")
        let result = try await run(w, state: database)
        #expect(result.status == 74, "\(result.standardError)")
        #expect(result.standardError.contains("newer than this feedmerge's"), "\(result.standardError)")
        #expect(
            try await PostgreSQLServer.psql(database, "SELECT value FROM meta WHERE name = 'schema_version'") == "99")
    }

    /// A claim is on the server's disk before its hosts are asked: its
    /// transaction commits with `synchronous_commit` on (the session's is off,
    /// for the batches of outcomes), so a server that crashes cannot forget a
    /// claim and hand its hosts out twice. Read in the server's statement log.
    @Test func aClaimCommitsWithSynchronousCommitOn() async throws {
        let database = await server.database()
        let name = database.split(separator: "=").last.map(String.init) ?? ""
        try await PostgreSQLServer.psql(database, "ALTER DATABASE \(name) SET log_statement = 'all'")
        let store = try PostgreSQLStateStore(connecting: database)
        let now = Timestamp(secondsSince1970: 1_706_745_600)
        _ = try store.subscribe(["http://127.0.0.1:9/\(name).xml"], now: now)
        let claims = try store.claim(
            ClaimRequest(scope: .due, hosts: 10, holder: name, leaseSeconds: 60, now: now))
        #expect(claims.count == 1)
        let pid = try await PostgreSQLServer.psql(
            database, "SELECT pid FROM pg_stat_activity WHERE application_name = 'feedmerge' AND datname = '\(name)'")
        let log = try String(contentsOfFile: server.socketFolder + "/log", encoding: .utf8)
        let statements = log.split(separator: "\n").filter { $0.contains("[\(pid)] LOG:  ") }.map {
            $0.components(separatedBy: "LOG:  ").last ?? ""
        }
        // The hosts waited on longest (`claim_waiting`), then any others (`claim_due`): one transaction.
        let claim = try #require(statements.firstIndex { $0.hasPrefix("execute claim_") }, "\(statements)")
        let last = try #require(statements.lastIndex { $0.hasPrefix("execute claim_") })
        #expect(claim > 0 && statements[claim - 1] == "statement: BEGIN; SET LOCAL synchronous_commit TO on")
        #expect(statements.dropFirst(last + 1).first == "statement: COMMIT", "\(statements)")
        withExtendedLifetime(store) {}
    }

    /// `seconds` after 2024-02-01T00:00:00Z.
    static func at(_ seconds: Int64) -> Timestamp { Timestamp(secondsSince1970: 1_706_745_600 + seconds) }

    /// A due claim of up to 10 hosts by `holder`, each leased for 60 s.
    static func claimDue(_ store: PostgreSQLStateStore, holder: String, at now: Timestamp) throws -> [HostClaim] {
        try store.claim(ClaimRequest(scope: .due, hosts: 10, holder: holder, leaseSeconds: 60, now: now))
    }

    /// A feed no run lists any more leaves the schedule at the next claim
    /// (its `next_check` cleared): nothing claims it, and kept, its old
    /// `next_check` would be walked past by every claim and count of the due
    /// for good. Listed again, it is due at once.
    @Test func aFeedNoRunListsLeavesTheSchedule() async throws {
        let database = await server.database()
        let store = try PostgreSQLStateStore(connecting: database)
        let kept = "http://127.0.0.1:9/kept.xml"
        let dropped = "http://127.0.0.1:9/dropped.xml"
        func claim(at now: Timestamp) throws -> [HostClaim] { try Self.claimDue(store, holder: "unlisted", at: now) }
        func scheduled() async throws -> String {
            try await PostgreSQLServer.psql(
                database, "SELECT string_agg(url, ' ' ORDER BY url) FROM feeds WHERE next_check IS NOT NULL")
        }
        _ = try store.subscribe([kept, dropped], now: Self.at(0))
        let later = ClaimRequest.listedWithin + 60
        _ = try store.subscribe([kept], now: Self.at(later))
        let first = try claim(at: Self.at(later))
        #expect(first.flatMap(\.feeds) == [kept])
        #expect(try await scheduled() == kept)
        #expect(try store.release(first.map(\.lease), schedule: [], fetchedBy: "unlisted").isEmpty, "no lease lost")

        _ = try store.subscribe([kept, dropped], now: Self.at(later + 3_600))
        #expect(try await scheduled() == "\(dropped) \(kept)")
        let second = try claim(at: Self.at(later + 3_600))
        #expect(second.flatMap(\.feeds) == [dropped, kept])
        withExtendedLifetime(store) {}
    }

    /// A due claim notes its feeds that have nothing stored (read under its leases: nobody else
    /// can store one meanwhile), and their histories are not asked of the server; a feed with a
    /// document is, and so is one whose outcome this process has stored since. The table of
    /// documents is renamed away after the claim: a history the server is asked for fails.
    @Test func aClaimedFeedWithNothingStoredIsNotAskedForItsDocument() async throws {
        let database = await server.database()
        let store = try PostgreSQLStateStore(connecting: database)
        let new = "http://127.0.0.1:9/new.xml"
        let old = "http://127.0.0.1:9/old.xml"
        func claim(at now: Timestamp) throws -> [HostClaim] { try Self.claimDue(store, holder: "documents", at: now) }
        func fetched(_ url: String, at now: Timestamp) -> FeedUpdate {
            var entry = Entry()
            entry.id = "urn:\(url)"
            entry.title = Text("Entry")
            return FeedUpdate(
                url: url,
                outcome: .fetched(
                    entries: PreparedEntries([entry]), etag: nil, lastModified: nil, metadata: FeedMetadata(),
                    restamping: false),
                status: 200, movedTo: nil, notBefore: nil, now: now)
        }
        _ = try store.subscribe([new, old], now: Self.at(0))
        let first = try #require(claim(at: Self.at(0)).first)
        #expect(first.feeds == [new, old])
        _ = try store.history(of: old)
        try store.record(fetched(old, at: Self.at(0)), fencedBy: first.lease)
        #expect(try store.commit().isEmpty)
        let again = [new, old].map { ScheduledFeed(url: $0, nextCheck: Self.at(60), lease: first.lease) }
        #expect(try store.release([first.lease], schedule: again, fetchedBy: "documents").isEmpty)

        let second = try #require(claim(at: Self.at(60)).first)
        #expect(second.feeds == [new, old])
        try await PostgreSQLServer.psql(database, "ALTER TABLE feed_entries RENAME TO feed_entries_away")
        #expect(try store.history(of: new).summary.count == 0, "not asked: nothing was stored at the claim")
        #expect(throws: StateError.self, "asked: it has a document") { try store.history(of: old) }
        try await PostgreSQLServer.psql(database, "ALTER TABLE feed_entries_away RENAME TO feed_entries")
        try store.record(fetched(new, at: Self.at(60)), fencedBy: second.lease)
        #expect(try store.commit().isEmpty)
        #expect(try store.history(of: new).summary.count == 1, "asked once this process stored it")
        withExtendedLifetime(store) {}
    }

    /// The server ends the run's connection while feeds are still being
    /// fetched (an administrator's `pg_terminate_backend`, a server restart):
    /// the store opens a new connection and stores the run's outcomes; the
    /// outputs are written as always.
    @Test func aConnectionEndedMidRunIsOpenedAgain() async throws {
        let w = try StateTests.Workspace("pg-lost")
        let database = await server.database()
        let name = database.split(separator: "=").last.map(String.init) ?? ""
        let state = PlanetServer.state
        _ = try await HTTPClient().fetch(FetchRequest(url: state.url("/rehold")))
        let arguments = [
            state.url("/order/P"), state.url("/hold"), "-o", w.path("out.json"), "--now", "2024-07-01T00:00:00Z",
            "--state", database,
        ]
        let run = Task.detached { try await CommandRun.feedmerge(arguments) }
        // While /hold holds the run: P's outcome is recorded, not sent yet (a batch is 64 outcomes).
        // The run's connection, once it holds its hosts' leases and waits (however slowly a
        // loaded machine starts it), is ended; then /hold answers.
        var ended = "0"
        for _ in 0..<600 where ended == "0" {
            try await Task.sleep(for: .milliseconds(100))
            // (Before the run has made its tables, the query fails: not yet.)
            ended =
                (try? await PostgreSQLServer.psql(
                    database,
                    """
                    SELECT count(*) FROM (SELECT pg_terminate_backend(a.pid) FROM pg_stat_activity a
                        WHERE a.datname = '\(name)' AND a.application_name = 'feedmerge' AND a.state = 'idle'
                            AND EXISTS (SELECT 1 FROM hosts WHERE lease_token IS NOT NULL)) t
                    """)) ?? "0"
        }
        _ = try await HTTPClient().fetch(FetchRequest(url: state.url("/release")))
        let result = try await run.value
        #expect(ended == "1", "the run's connection was ended")
        #expect(result.status == 0, "\(result.standardError)")
        let written = try String(contentsOfFile: w.path("out.json"), encoding: .utf8)
        #expect(written.contains("P post") && written.contains("held post"), "\(written)")
        #expect(try await PostgreSQLServer.psql(database, "SELECT count(*) FROM feeds WHERE last_status = 200") == "2")
    }

    /// A statement the server refuses (a full disk, a constraint: here a
    /// CHECK no large document passes) costs only its own feed: the batch is
    /// sent again outcome by outcome, the others are stored, the refused
    /// feeds are named with the server's reason (one line for the two: the
    /// same failure is said once), their entries still reach the outputs,
    /// and the run exits 74.
    @Test func aRefusedOutcomeCostsOnlyItsFeed() async throws {
        let w = try StateTests.Workspace("pg-refused")
        let database = await server.database()
        let small = w.path("small.rss")
        try Data("<rss version=\"2.0\"><channel><title>S</title><item><guid>urn:s</guid></item></channel></rss>".utf8)
            .write(to: URL(fileURLWithPath: small))
        let large = ["a", "b"].map { w.path("large-\($0).rss") }
        for (index, path) in large.enumerated() {
            let items = (1...200).map {
                "<item><guid>urn:l\(index):\($0)</guid><title>Large \($0) \(UUID())</title></item>"
            }
            try Data("<rss version=\"2.0\"><channel><title>L</title>\(items.joined())</channel></rss>".utf8)
                .write(to: URL(fileURLWithPath: path))
        }
        func run(_ feeds: [String], _ now: String) async throws -> CommandRun {
            try await CommandRun.feedmerge(feeds + ["-o", w.path("out.json"), "--now", now, "--state", database])
        }
        #expect(try await run([small], "2024-02-01T00:00:00Z").status == 0)
        try await PostgreSQLServer.psql(
            database, "ALTER TABLE feed_entries ADD CONSTRAINT small CHECK (length(document) < 2000)")
        let result = try await run([small] + large, "2024-02-02T00:00:00Z")
        #expect(result.status == 74, "\(result.standardError)")
        let said = result.standardError.split(separator: "\n").filter { $0.contains("state:") }
        #expect(said.count == 1, "one line for the one failure: \(result.standardError)")
        #expect(
            said.first?.hasPrefix("feedmerge: \(large[0]) and 1 more feed: state: its fetch cannot be recorded")
                == true,
            "\(result.standardError)")
        #expect(said.first?.hasSuffix("violates check constraint \"small\"") == true, "the server's reason: \(said)")
        let written = try String(contentsOfFile: w.path("out.json"), encoding: .utf8)
        #expect(written.contains("Large 200") && written.contains("urn:s"))
        let fetched = try await PostgreSQLServer.psql(
            database, "SELECT url, last_fetch FROM feeds WHERE last_fetch IS NOT NULL ORDER BY url")
        #expect(
            fetched == "\(small)|\(1_706_832_000)",
            "the small feed's outcome is stored, the large ones' not: \(fetched)")
    }
}

/// What `--state` names: a libpq connection string (a URI, or `key=value`
/// words beginning with one of libpq's keywords) is a PostgreSQL database;
/// anything else is a SQLite file's path, even with an `=` in it.
@Suite struct StateLocationTests {
    @Test(arguments: [
        ("postgresql://planet@db.example/planet", true), ("postgres://db/planet", true),
        ("host=/var/run/postgresql dbname=planet", true), ("  dbname=planet", true), ("service=planet", true),
        ("state.sqlite", false), ("/srv/planet/state.sqlite", false), ("a=b.sqlite", false),
        ("./host=x.sqlite", false), ("postgresql.sqlite", false), ("dbname", false),
    ])
    func aConnectionStringNamesADatabaseAndAnythingElseAFile(value: String, isDatabase: Bool) {
        let location = StateLocation(value)
        #expect(location == (isDatabase ? .postgreSQL(conninfo: value) : .sqlite(path: value)))
    }
}
