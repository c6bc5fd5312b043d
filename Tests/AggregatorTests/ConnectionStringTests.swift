import Foundation
import PostgreSQLState
import TestSupport
import Testing

/// A PostgreSQL connection string's password never reaches a message: not
/// when libpq quotes the malformed string (or a token of it), not when a
/// message quotes the string itself.
@Suite struct ConnectionStringTests {
    @Test(arguments: [
        ("postgresql://alice:secret@localhost/db", "postgresql://alice:***@localhost/db"),
        ("postgres://alice:s%40cret@db.example:5432/planet", "postgres://alice:***@db.example:5432/planet"),
        ("postgresql://alice:secret@[::1/db", "postgresql://alice:***@[::1/db"),
        (
            "postgresql://alice@localhost/db?password=secret&sslmode=off",
            "postgresql://alice@localhost/db?password=***&sslmode=off"
        ),
        ("password=secret host=/tmp dbname=x", "password=*** host=/tmp dbname=x"),
        ("host=/tmp password = 'se cr\\'et' dbname=x", "host=/tmp password = *** dbname=x"),
        ("host=/tmp dbname=planet", "host=/tmp dbname=planet"),
    ])
    func aConnectionStringIsWrittenWithoutItsPassword(conninfo: String, shown: String) {
        #expect(ConnectionString.redacted(conninfo) == shown)
    }

    /// libpq's words quote a token (the password itself) or the whole string.
    @Test func libpqsMessagesLoseThePasswordTheyQuote() {
        let percent = "postgresql://alice:PW%ZZ@localhost/db"
        #expect(
            ConnectionString.redact(#"invalid percent-encoded token: "PW%ZZ""#, secretsOf: percent)
                == #"invalid percent-encoded token: "***""#)
        let bracket = "postgresql://alice:secret@[::1/db"
        let said = ConnectionString.redact(
            #"end of string reached when looking for matching "]" in IPv6 host address in URI: "\#(bracket)""#,
            secretsOf: bracket)
        #expect(!said.contains("secret") && said.contains("postgresql://alice:***@[::1/db"), "\(said)")
        let words = "password=hunter2 host=/nowhere port=notaport"
        #expect(!ConnectionString.redact("missing \"=\" after \"hunter2\"", secretsOf: words).contains("hunter2"))
        // A password in someone else's string, quoted in a message, goes too.
        #expect(
            ConnectionString.redact("see postgresql://bob:pw@h/db", secretsOf: "") == "see postgresql://bob:***@h/db")
    }

    /// The real command line, through libpq: standard error and the exit
    /// status, for each malformed form.
    @Test(arguments: [
        ("postgresql://alice:PW%ZZ@localhost/db", "PW%ZZ"),
        ("postgresql://alice:secret@[::1/db", "secret"),
        ("password=secret host=/nowhere port=notaport dbname=x", "secret"),
        ("password=secret host=/nowhere dbname=x bogus_option=1", "secret"),
        ("password='secret host=/nowhere", "secret"),
    ])
    func aMalformedConnectionStringIsReportedWithoutItsPassword(conninfo: String, password: String) async throws {
        let w = try StateTests.Workspace("pg-malformed-\(UUID().uuidString.prefix(8))")
        let feed = w.path("feed.rss")
        try Data("<rss version=\"2.0\"><channel><title>P</title></channel></rss>".utf8)
            .write(to: URL(fileURLWithPath: feed))
        for arguments in [
            [feed, "-o", w.path("out.json"), "--state", conninfo, "-q"],
            ["worker", feed, "--state", conninfo, "--drain", "-q"],
            ["render", feed, "--state", conninfo, "-o", w.path("render.json"), "-q"],
            ["state", "copy", conninfo, w.path("s.sqlite")],
        ] {
            let run = try await CommandRun.feedmerge(arguments)
            #expect(run.status == 74, "\(arguments[0]): \(run.standardError)")
            #expect(!run.standardError.isEmpty)
            #expect(!run.standardError.contains(password), "\(arguments[0]): \(run.standardError)")
        }
    }
}
