import FeedModel
import Foundation
import Testing

@testable import FeedState

/// What the state keeps of an entry and of a feed comes back whole: a
/// field the codecs drop would make a 304 change the output.
@Suite struct StateCodecTests {
    static var everyEntryField: Entry {
        var entry = Entry()
        entry.id = "urn:e"
        entry.title = Text("T", kind: .html)
        entry.link = "http://x/1"
        entry.summary = Text("S")
        entry.content = [Text("<p>c</p>", kind: .html), Text("<div>x</div>", kind: .xhtml)]
        entry.published = Timestamp(secondsSince1970: 1)
        entry.updated = Timestamp(secondsSince1970: 2)
        entry.authors = [Person(name: "A", email: "a@x", uri: "http://x/a")]
        entry.contributors = [Person(name: "C")]
        entry.enclosures = [
            Enclosure(url: "http://x/1.mp3", length: 3, type: "audio/mpeg", duration: 61),
            Enclosure(url: "http://x/2.mp3"),
        ]
        entry.categories = [Category(term: "t", scheme: "s", label: "l")]
        entry.rights = Text("R")
        entry.comments = "http://x/c"
        entry.language = "en"
        entry.image = "http://x/i.png"
        entry.explicit = true
        return entry
    }

    @Test func everyEntryFieldSurvives() {
        #expect(EntryCodec.decode(EntryCodec.encode(Self.everyEntryField)) == Self.everyEntryField)
    }

    @Test func entriesStoredByVersion1StillDecode() {
        var entry = Self.everyEntryField
        entry.enclosures = []
        entry.explicit = nil
        var bytes = EntryCodec.encode(entry)
        bytes.removeLast()  // version 2's `explicit` flag (no enclosure durations: no enclosures)
        bytes[0] = 1
        #expect(EntryCodec.decode(bytes) == entry)
    }

    @Test func everyFeedMetadataFieldSurvives() {
        var metadata = FeedMetadata()
        metadata.title = Text("T")
        metadata.subtitle = Text("<b>S</b>", kind: .html)
        metadata.link = "http://x/"
        metadata.id = "urn:f"
        metadata.updated = Timestamp(secondsSince1970: 5)
        metadata.published = Timestamp(secondsSince1970: 4)
        metadata.rights = Text("R")
        metadata.language = "de"
        metadata.icon = "http://x/i"
        metadata.logo = "http://x/l"
        metadata.image = "http://x/m"
        metadata.generator = "g"
        metadata.authors = [Person(name: "A", email: "a@x")]
        metadata.contributors = [Person(uri: "http://x/c")]
        metadata.categories = [Category(term: "c", scheme: "s")]
        metadata.explicit = false
        #expect(FeedMetadataCodec.decode(FeedMetadataCodec.encode(metadata)) == metadata)
    }
}

/// A state file of schema 1 is upgraded in place; its feeds lose their
/// validators once, so the next run fetches them whole and stores their
/// metadata (a 304 would serve them without it, changing the output).
@Suite struct StateMigrationTests {
    @Test func schema1FilesAreUpgradedAndRefetchedOnce() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("feedmerge-migrate-\(getpid())")
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("state.sqlite").path
        do {
            let old = try SQLiteDatabase(path: path)
            try old.execute(SQLiteStateStore.migrations[0])
            try old.execute("PRAGMA user_version = 1")
            try old.execute(
                "INSERT INTO feeds(url, first_seen, etag, last_modified, title, link) "
                    + "VALUES ('http://a.example/feed', 1, '\"v1\"', 'Tue, 02 Jan 2024 00:00:00 GMT', 'A', 'http://a.example/')"
            )
        }
        let store = try SQLiteStateStore(path: path)
        let record = try #require(try store.feed("http://a.example/feed"))
        #expect(record.etag == nil && record.lastModified == nil)
        #expect(record.metadata?.title?.value == "A")
        #expect(record.metadata?.link == "http://a.example/")
    }
}

/// Entries are stored compressed (schema 4), each alone; a damaged stored
/// form is an unreadable entry, never a crash or a wrong entry (the
/// checksum: a flipped byte in a literal would still decompress).
@Suite struct EntryCompressionTests {
    static var longEntry: Entry {
        var entry = StateCodecTests.everyEntryField
        entry.content = [Text(String(repeating: "<p>A paragraph of a post, <a href=\"http://x/\">linked</a>.</p>\n", count: 40), kind: .html)]
        return entry
    }

    @Test func aLongEntryIsStoredCompressedAndComesBackWhole() throws {
        let prepared = PreparedEntries([Self.longEntry])
        let stored = try #require(prepared.stored.first)
        #expect(stored.first == EntryCompression.compressed)
        #expect(stored.count * 4 < EntryCodec.encode(Self.longEntry).count)
        #expect(EntryCompression.entry(stored[...]) == Self.longEntry)
        #expect(prepared.keys == EntryKey.keys(of: [Self.longEntry]))
    }

    @Test func aSmallEntryIsStoredAsItsCodecBytes() throws {
        var entry = Entry()
        entry.id = "urn:s"
        let stored = try #require(PreparedEntries([entry]).stored.first)
        #expect(stored == EntryCodec.encode(entry))
        #expect(EntryCompression.entry(stored[...]) == entry)
    }

    @Test func damagedFramesAreUnreadableEntries() throws {
        let stored = try #require(PreparedEntries([Self.longEntry]).stored.first)
        var otherEntry = Self.longEntry
        otherEntry.title = Text("Other")
        var flipped = stored
        flipped[stored.count / 2] ^= 0xFF
        let damaged: [[UInt8]] = [
            [EntryCompression.compressed],
            Array(stored.prefix(stored.count / 2)),
            flipped,
            // A length of 4 GB.
            [EntryCompression.compressed, 0x80, 0x80, 0x80, 0x80, 0x10, 0, 0, 0, 0, 0x10],
            // The right length and checksum before another entry's block.
            Array(stored.prefix(7)) + Array(PreparedEntries([otherEntry]).stored[0].dropFirst(7)),
        ]
        for bytes in damaged {
            #expect(EntryCompression.entry(bytes[...]) == nil, "a damaged stored form gave an entry")
        }
        #expect(EntryCompression.entry(stored[...]) == Self.longEntry)
    }
}

/// A schema 3 file (a row per entry, uncompressed, two indexes) is upgraded
/// in place: one document per feed, entries compressed, the file vacuumed
/// onto 8 KB pages; every entry and record reads back as before.
@Suite struct StateSchema4MigrationTests {
    @Test func schema3FilesAreCompactedInPlace() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("feedmerge-schema4-\(getpid())")
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("state.sqlite").path
        let feeds = ["http://a.example/feed", "http://b.example/feed"]
        var entries: [String: [Entry]] = [:]
        do {
            let old = try SQLiteDatabase(path: path)
            for sql in SQLiteStateStore.migrations.prefix(3) { try old.execute(sql) }
            try old.execute("PRAGMA user_version = 3")
            for (f, url) in feeds.enumerated() {
                try old.prepare("INSERT INTO feeds(url, first_seen, etag, title) VALUES (?, 10, '\"e\"', 'T')")
                    .run([.text(url)])
                for n in 0..<30 {
                    var entry = EntryCompressionTests.longEntry
                    entry.id = "urn:\(f)-\(n)"
                    entry.published = Timestamp(secondsSince1970: Int64(1000 + n))
                    entries[url, default: []].append(entry)
                    try old.prepare(
                        """
                        INSERT INTO entries(feed_url, key, content_hash, position, first_seen, last_seen, first_date,
                            entry_date, latest_date, first_position, entry)
                        VALUES (?, ?, 0, ?, 10, 10, ?, ?, ?, ?, ?)
                        """
                    ).run([
                        .text(url), .text("id:urn:\(f)-\(n)"), .integer(Int64(n)), .integer(Int64(1000 + n)),
                        .integer(Int64(1000 + n)), .integer(Int64(1000 + n)), .integer(Int64(n)),
                        .blob(EntryCodec.encode(entry)),
                    ])
                }
            }
            // A damaged row stays damaged (and is reported when read), and does not stop the upgrade.
            try old.execute("UPDATE entries SET entry = X'FF' WHERE key = 'id:urn:1-29'")
        }
        let before = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        let store = try SQLiteStateStore(path: path)
        let after = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        #expect(after < before / 2, "\(before) → \(after) bytes")
        for url in feeds {
            let record = try #require(try store.feed(url))
            #expect(record.etag == "\"e\"" && record.title == "T")
            let stored = try store.entries(of: url, notOlderThan: nil, except: [])
            let expected = entries[url]!.filter { $0.id != "urn:1-29" }
            #expect(Set(stored.map(\.entry.id)) == Set(expected.map(\.id)))
            #expect(stored.map(\.entry) == stored.map { s in expected.first { $0.id == s.entry.id }! })
            #expect(try store.sightings(of: url).count == 30)
        }
        #expect(store.takeUnreadableCount(of: feeds[1]) == 1)
        do {
            let database = try SQLiteDatabase(path: path)
            var checks: [String] = []
            try database.prepare("PRAGMA user_version").query { checks.append("version \($0.integer(0) ?? 0)") }
            try database.prepare("PRAGMA page_size").query { checks.append("page \($0.integer(0) ?? 0)") }
            var compressed = 0
            try database.prepare("SELECT document FROM feed_entries").query { row in
                compressed += FeedEntries(document: row.blob(0))?.rows.filter { $0.stored.first == EntryCompression.compressed }.count ?? -100
            }
            checks.append("compressed \(compressed)")
            try database.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'entries'").query {
                checks.append("entries table \($0.integer(0) ?? 0)")
            }
            try database.prepare("PRAGMA foreign_key_check").query { _ in checks.append("foreign key broken") }
            #expect(checks == ["version 4", "page 8192", "compressed 59", "entries table 0"])
        }
        // A renamed feed keeps its entries (they name it by number).
        try store.rename(feed: feeds[0], to: "http://a.example/moved")
        #expect(try store.entries(of: "http://a.example/moved", notOlderThan: nil, except: []).count == 30)
    }
}
