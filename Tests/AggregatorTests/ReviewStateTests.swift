import FeedModel
import Foundation
import Testing

@testable import FeedState
@testable import SQLiteState
@testable import StateDocument

/// The SQLite store's writer (`StateWriter`) and its one-document-per-feed schema
/// where they can go wrong: batches undone by an error, damaged documents, the
/// journal copied beside the run and kept short.
@Suite struct ReviewStateTests {
    static func folder(_ name: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("feedmerge-review-\(name)-\(getpid())")
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent("state.sqlite").path
    }

    static func fetched(_ url: String, ids: [String], now: Int64) -> FeedUpdate {
        let entries = ids.map { id -> Entry in
            var entry = Entry()
            entry.id = id
            entry.title = Text("title \(id)")
            return entry
        }
        return FeedUpdate(
            url: url,
            outcome: .fetched(
                entries: PreparedEntries(entries), etag: "\"e\"", lastModified: nil, metadata: FeedMetadata(),
                restamping: false),
            status: 200, movedTo: nil, notBefore: nil, now: Timestamp(secondsSince1970: now))
    }

    /// An error that ends the writer's whole transaction (SQLite rolls it
    /// back by itself on some errors: disk full, I/O, here a trigger's
    /// `RAISE(ROLLBACK)`) also undoes the batch's earlier outcomes; those
    /// must be reported too, not lost in silence.
    @Test func anErrorThatEndsTheBatchReportsEveryOutcomeItUndid() throws {
        let path = try Self.folder("rollback")
        let store = try SQLiteStateStore(path: path)
        let (good, refused) = ("http://good.example/feed", "http://refused.example/feed")
        do {
            let database = try SQLiteDatabase(path: path)
            try database.execute(
                """
                CREATE TRIGGER refuse BEFORE INSERT ON feed_entries
                WHEN NEW.feed = (SELECT id FROM feeds WHERE url = '\(refused)')
                BEGIN SELECT RAISE(ROLLBACK, 'refused by a test trigger'); END
                """)
        }
        try store.record(Self.fetched(good, ids: ["a", "b"], now: 100))
        try store.record(Self.fetched(refused, ids: ["c"], now: 100))
        let failures = try store.commit()
        #expect(failures[refused] != nil)
        let stored = try store.feed(good) != nil
        #expect(stored || failures[good] != nil, "the good feed's outcome was lost and not reported: \(failures)")
    }

    /// The command line, a local feed (fetched whole every run): a feed
    /// whose stored document is damaged is said so once, and its next
    /// fetch replaces the document (`storeEntries` means to: "a document
    /// that cannot be read is replaced"). Reading the sightings fails first;
    /// were the fetch then not recorded, every later run would fail the
    /// same way (exit 74) for good.
    @Test func aDamagedDocumentIsReplacedByTheNextFetch() async throws {
        let w = try StateTests.Workspace("review-damaged-document")
        let feed = w.path("feed.rss")
        let items = (1...3).map { "<item><guid>urn:r:\($0)</guid><title>Item \($0)</title></item>" }.joined()
        try Data("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>R</title>\(items)</channel></rss>".utf8)
            .write(to: URL(fileURLWithPath: feed))
        func run(_ now: String) async throws -> CommandRun {
            try await CommandRun.feedmerge([
                feed, "-o", w.path("out.json"), "--now", now, "--state", w.state, "-q", "--fetch-all",
            ])
        }
        let first = try await run("2024-02-01T00:00:00Z")
        #expect(first.status == 0, "\(first.standardError)")
        do {
            let database = try SQLiteDatabase(path: w.state)
            try database.execute("UPDATE feed_entries SET document = X'FF00'")
        }
        let second = try await run("2024-02-02T00:00:00Z")
        #expect(second.status == 74 && second.standardError.contains("damaged"), "\(second.standardError)")
        let third = try await run("2024-02-03T00:00:00Z")
        #expect(third.status == 0, "the damaged document was never replaced: \(third.standardError)")
        let database = try SQLiteDatabase(path: w.state)
        var document: [UInt8] = []
        try database.prepare("SELECT document FROM feed_entries").query { document = $0.blob(0) }
        #expect(FeedEntries(document: document)?.rows.count == 3)
    }

    /// The command line, a feed answering 304: every entry comes from its
    /// document, so a damaged document costs the whole feed; were its
    /// validators kept, nothing would replace it while the server answers
    /// 304, and every run would say so, exit 74, for good. So a damaged
    /// document drops the feed's validators, as damaged metadata does
    /// (`SQLiteStateStore.feedRecord`), and the next run fetches it whole.
    @Test func aDamagedDocumentOfANotModifiedFeedIsFetchedWholeNextTime() async throws {
        let server = PlanetServer.state
        let w = try StateTests.Workspace("review-damaged-304")
        let arguments = [
            server.url("/feed/sf3"), "-o", w.path("out.json"), "--now", "2024-02-01T00:00:00Z", "--state", w.state,
            "-q", "--fetch-all",
        ]
        let first = try await CommandRun.feedmerge(arguments)
        #expect(first.status == 0, "\(first.standardError)")
        do {
            let database = try SQLiteDatabase(path: w.state)
            try database.execute("UPDATE feed_entries SET document = X'FF00'")
        }
        let second = try await CommandRun.feedmerge(arguments)  // a 304
        #expect(second.status == 74 && second.standardError.contains("damaged"), "\(second.standardError)")
        func items() throws -> Int? {
            let data = try Data(contentsOf: URL(fileURLWithPath: w.path("out.json")))
            let object = try JSONSerialization.jsonObject(with: data)
            return ((object as? [String: Any])?["items"] as? [Any])?.count
        }
        // Fetched whole: its entries again, the document replaced.
        let third = try await CommandRun.feedmerge(arguments)
        #expect(try items() == 4, "still served from the damaged document: \(third.standardError)")
        let fourth = try await CommandRun.feedmerge(arguments)
        let count = try items()
        #expect(fourth.status == 0 && count == 4, "\(fourth.standardError)")
    }

    /// The journal's pages are copied into the database beside the run, after
    /// each committed batch (`Checkpointer`, on a thread of its own): not
    /// first when the journal passes SQLite's 1,000 pages (8 MB), on the
    /// writer's thread, nor only when the run is done with the store.
    @Test func theJournalIsCopiedIntoTheDatabaseWhileTheStoreIsOpen() async throws {
        let path = try Self.folder("checkpoint")
        let store = try SQLiteStateStore(path: path)
        func size() -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
        }
        let before = size()
        // About 1 MB of entries that do not compress (a hash chain), 64 feeds to a batch.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for n in 0..<150 {
            let entries = Self.incompressible(feed: n, count: 20, words: 64, state: &state)
            try store.record(Self.fetched(PreparedEntries(entries), url: "http://feed\(n).example/"))
        }
        #expect(try store.commit().isEmpty)  // no `finish()`: the batches' own checkpoints
        var grown = size() > before + 500_000
        for _ in 0..<200 where !grown {
            try await Task.sleep(for: .milliseconds(50))
            grown = size() > before + 500_000
        }
        #expect(grown, "the database file grew from \(before) to \(size()) bytes while the store was open")
        withExtendedLifetime(store) {}
    }

    /// A long run's journal starts over every `StateWriter.batchesPerJournal`
    /// batches (the writer waits for the checkpointer there), so it stays a
    /// few batches long: 48 batches of entries that barely compress (4.6 MB
    /// of codec bytes) leave a journal of about 2.9 MB; one that never
    /// started over would hold every page written, about 8.7 MB.
    @Test func aLongRunsJournalStartsOver() throws {
        let path = try Self.folder("journal-start-over")
        let store = try SQLiteStateStore(path: path)
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        let feeds = StateWriter.batchLimit * StateWriter.batchesPerJournal * 3
        var written = 0
        for n in 0..<feeds {
            let prepared = PreparedEntries(Self.incompressible(feed: n, count: 1, words: 300, state: &state))
            written += prepared.stored[0].count
            try store.record(Self.fetched(prepared, url: "http://feed\(n).example/"))
        }
        #expect(try store.commit().isEmpty)
        let journal = ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? 0
        #expect(journal > 0 && journal < written, "a journal of \(journal) bytes for \(written) written")
        withExtendedLifetime(store) {}
    }

    /// `count` entries of feed `n` whose titles do not compress: `words` words of a hash chain.
    static func incompressible(feed n: Int, count: Int, words: Int, state: inout UInt64) -> [Entry] {
        (0..<count).map { k in
            var entry = Entry()
            entry.id = "urn:\(n):\(k)"
            entry.title = Text(
                (0..<words).map { _ in
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    return String(state >> 40, radix: 36)
                }.joined())
            return entry
        }
    }

    /// A feed fetched (200) at time 100 that lists these entries.
    static func fetched(_ entries: PreparedEntries, url: String, now: Int64 = 100) -> FeedUpdate {
        FeedUpdate(
            url: url,
            outcome: .fetched(
                entries: entries, etag: nil, lastModified: nil, metadata: FeedMetadata(), restamping: false),
            status: 200, movedTo: nil, notBefore: nil, now: Timestamp(secondsSince1970: now))
    }
}
