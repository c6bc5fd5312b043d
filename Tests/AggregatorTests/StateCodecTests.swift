import FeedModel
import Foundation
import Testing

@testable import FeedState
@testable import SQLiteState
@testable import StateDocument

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
        metadata.ttlMinutes = 90
        metadata.updateInterval = 3_600
        var skipping = metadata
        skipping.skipHours = [0, 23]
        skipping.skipDays = [1, 7]
        #expect(FeedMetadataCodec.decode(FeedMetadataCodec.encode(skipping)) == skipping)
        #expect(FeedMetadataCodec.decode(FeedMetadataCodec.encode(metadata)) == metadata)
        // A state written before the feed's own address (version 4) is read, without it.
        var addressed = metadata
        addressed.selfLink = "http://x/feed"
        #expect(FeedMetadataCodec.decode(FeedMetadataCodec.encode(addressed)) == addressed)
        var hubbed = addressed
        hubbed.hubs = ["https://hub.example/", "https://pubsubhubbub.example/"]
        #expect(FeedMetadataCodec.decode(FeedMetadataCodec.encode(hubbed)) == hubbed)
        var version4 = FeedMetadataCodec.encode(addressed)
        version4.removeLast(1 + 1 + "http://x/feed".utf8.count)  // a presence byte, a one-byte length, the text
        version4[0] = 4
        #expect(FeedMetadataCodec.decode(version4) == metadata)
        // A state written before skipHours and skipDays (version 2) is read, without them.
        var old = FeedMetadataCodec.encode(metadata)
        old.removeLast(4)  // the two masks, 0: a presence byte each, then a one-byte varint
        old[0] = 2
        #expect(FeedMetadataCodec.decode(old) == metadata)
        // A state written before the update hints (version 1) is read, without them.
        old[0] = 1
        old.removeLast(5)  // the two integers: a presence byte each, then 90 and 3,600 as varints (1 and 2 bytes)
        var expected = metadata
        expected.ttlMinutes = nil
        expected.updateInterval = nil
        #expect(FeedMetadataCodec.decode(old) == expected)
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

/// A feed's entries are stored compressed, the document as one block
/// (schema 5); a damaged block is a damaged document, a damaged entry in
/// it (or a damaged stored form of schema 4) an unreadable entry, never a
/// crash or a wrong entry (the checksum: a flipped byte in a literal would
/// still decompress).
@Suite struct EntryCompressionTests {
    static var longEntry: Entry {
        var entry = StateCodecTests.everyEntryField
        entry.content = [
            Text(
                String(repeating: "<p>A paragraph of a post, <a href=\"http://x/\">linked</a>.</p>\n", count: 40),
                kind: .html)
        ]
        return entry
    }

    static func entries(_ count: Int) -> [Entry] {
        (0..<count).map { n in
            var entry = longEntry
            entry.id = "urn:\(n)"
            entry.title = Text("Post \(n)")
            entry.published = Timestamp(secondsSince1970: Int64(1000 + n))
            return entry
        }
    }

    static func document(of entries: [Entry]) -> FeedEntries {
        var document = FeedEntries()
        document.upsert(PreparedEntries(entries), now: 5000)
        return document
    }

    static func readAll(_ document: FeedEntries) -> [Entry] {
        var unreadable = 0
        return document.entries(notOlderThan: nil, except: [], unreadable: &unreadable).map(\.entry)
    }

    @Test func aFeedsDocumentIsStoredCompressedWholeAndComesBackWhole() throws {
        let entries = Self.entries(20)
        let bytes = Self.document(of: entries).document
        #expect(bytes.first == FeedEntries.compressedVersion)
        let plain = entries.reduce(0) { $0 + EntryCodec.encode($1).count }
        #expect(bytes.count * 8 < plain, "\(bytes.count) bytes for \(plain) bytes of entries")
        let read = try #require(FeedEntries(document: bytes))
        #expect(Set(Self.readAll(read).map(\.id)) == Set(entries.map(\.id)))
        #expect(Self.readAll(read).sorted { $0.id! < $1.id! } == entries.sorted { $0.id! < $1.id! })
        #expect(read.document == bytes, "written again, the same bytes")
    }

    @Test func aDocumentTooSmallToGainIsStoredAsItIs() throws {
        var entry = Entry()
        entry.id = "urn:s"
        #expect(PreparedEntries([entry]).stored.first == EntryCodec.encode(entry))
        let bytes = Self.document(of: [entry]).document
        #expect(bytes.first == FeedEntries.plainVersion)
        #expect(Self.readAll(try #require(FeedEntries(document: bytes))) == [entry])
    }

    @Test func damagedDocumentsAreDamagedAndDamagedEntriesUnreadable() throws {
        let bytes = Self.document(of: Self.entries(5)).document
        var flipped = bytes
        flipped[bytes.count / 2] ^= 0xFF
        let damaged: [[UInt8]] = [
            [], [FeedEntries.compressedVersion], [9] + bytes.dropFirst(),
            Array(bytes.prefix(bytes.count / 2)), flipped,
            // A length of 4 GB.
            [
                FeedEntries.compressedVersion, EntryCompression.compressed, 0x80, 0x80, 0x80, 0x80, 0x10, 0, 0, 0, 0,
                0x10,
            ],
            // The right length and checksum before another document's block.
            Array(bytes.prefix(8)) + Self.document(of: Self.entries(6)).document.dropFirst(8),
        ]
        for bytes in damaged {
            #expect(FeedEntries(document: bytes) == nil, "a damaged document was read")
        }
        // Schema 4's stored forms: each entry compressed alone.
        let stored = try #require(EntryCompression.compress(EntryCodec.encode(Self.longEntry)))
        var otherEntry = Self.longEntry
        otherEntry.title = Text("Other")
        var flippedEntry = stored
        flippedEntry[stored.count / 2] ^= 0xFF
        let damagedEntries: [[UInt8]] = [
            [EntryCompression.compressed], Array(stored.prefix(stored.count / 2)), flippedEntry,
            [EntryCompression.compressed, 0x80, 0x80, 0x80, 0x80, 0x10, 0, 0, 0, 0, 0x10],
            Array(stored.prefix(7))
                + Array(try #require(EntryCompression.compress(EntryCodec.encode(otherEntry))).dropFirst(7)),
            [0xFF],
        ]
        for bytes in damagedEntries {
            #expect(EntryCompression.entry(bytes[...]) == nil, "a damaged stored form gave an entry")
        }
        #expect(EntryCompression.entry(stored[...]) == Self.longEntry)
    }

    /// A stored form compressed twice (no store writes one, a damaged file
    /// can hold one) is kept as it is: written back, the document reads
    /// back the same, and the entry stays unreadable.
    @Test func aStoredFormCompressedTwiceIsKeptAsItIs() throws {
        let once = try #require(EntryCompression.compress(EntryCodec.encode(Self.longEntry)))
        let twice = try #require(EntryCompression.compress(once + once))
        let bytes = try Self.version1Document([Self.longEntry], replacing: twice)
        let written = try #require(FeedEntries(document: bytes)).document
        let again = try #require(FeedEntries(document: written))
        #expect(again.document == written)
        #expect(again.rows.first?.stored == twice[...])
        var unreadable = 0
        #expect(again.entries(notOlderThan: nil, except: [], unreadable: &unreadable).isEmpty && unreadable == 1)
    }

    /// A schema 4 document: the rows as they are, each entry compressed alone.
    static func version1Document(
        _ entries: [Entry], damaging damagedIndex: Int? = nil, replacing replacement: [UInt8]? = nil
    ) throws -> [UInt8] {
        var out = EntryCodec.Writer()
        out.byte(FeedEntries.plainVersion)
        out.count(entries.count)
        for (n, entry) in entries.enumerated() {
            out.string("id:" + entry.id!)
            out.integer(10)
            out.integer(10)
            out.integer(entry.published?.secondsSince1970)
            out.integer(entry.published?.secondsSince1970)
            out.integer(entry.published?.secondsSince1970 ?? 10)
            out.integer(Int64(n))
            out.integer(Int64(n))
            let stored = try #require(EntryCompression.compress(EntryCodec.encode(entry)))
            out.blob(n == damagedIndex ? [0xFF] : replacement ?? stored)
        }
        return out.bytes
    }

    @Test func aVersion1DocumentIsReadAndWrittenAsVersion2() throws {
        let entries = Self.entries(8)
        let old = try #require(FeedEntries(document: try Self.version1Document(entries, damaging: 3)))
        var unreadable = 0
        #expect(old.entries(notOlderThan: nil, except: [], unreadable: &unreadable).count == 7)
        #expect(unreadable == 1)
        let bytes = old.document
        #expect(bytes.first == FeedEntries.compressedVersion)
        let again = try #require(FeedEntries(document: bytes))
        #expect(again.rows.allSatisfy { $0.stored.first != EntryCompression.compressed }, "no entry compressed twice")
        unreadable = 0
        let read = again.entries(notOlderThan: nil, except: [], unreadable: &unreadable).map(\.entry)
        #expect(unreadable == 1, "the damaged entry stays damaged")
        #expect(Set(read.map(\.id)) == Set(entries.map(\.id)).subtracting(["urn:3"]))
    }
}

/// A schema 3 file (a row per entry, uncompressed, two indexes) is upgraded
/// in place: one document per feed, compressed, the file vacuumed onto
/// 8 KB pages; every entry and record reads back as before.
extension EntryCompressionTests {
    /// A stored entry served lazily is skimmed first (`EntryCodec.skim`):
    /// it must fail exactly where decoding fails, so that an entry counted
    /// readable always decodes, and give the same id, link and dates.
    @Test func skimmingAgreesWithDecodingOnEveryCutAndDamage() {
        var entry = Self.longEntry
        entry.id = "urn:skim"
        entry.link = "http://skim.example/post"
        entry.published = Timestamp(secondsSince1970: 1234)
        entry.updated = Timestamp(secondsSince1970: 5678)
        entry.enclosures = [Enclosure(url: "http://skim.example/a.mp3", length: 9, type: "audio/mpeg", duration: 60)]
        entry.categories = [Category(term: "t", scheme: "s", label: "l")]
        entry.authors = [Person(name: "A", email: "a@example.com", uri: nil)]
        entry.explicit = true
        let bytes = EntryCodec.encode(entry)
        let skimmed = EntryCodec.skim(bytes)
        #expect(skimmed?.id == "urn:skim" && skimmed?.link == "http://skim.example/post")
        #expect(skimmed?.published == entry.published && skimmed?.updated == entry.updated)
        var damaged: [[UInt8]] = (0..<bytes.count).map { Array(bytes.prefix($0)) }
        for index in stride(from: 0, to: bytes.count, by: 7) {
            var changed = bytes
            changed[index] ^= 0xFF
            damaged.append(changed)
        }
        for form in damaged {
            let decoded = EntryCodec.decode(form)
            let skim = EntryCodec.skim(form)
            #expect((decoded == nil) == (skim == nil), "\(form.count) bytes")
            if let decoded, let skim {
                #expect(skim.id == decoded.id && skim.link == decoded.link)
                #expect(skim.published == decoded.published && skim.updated == decoded.updated)
            }
        }
    }
}

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
        for (f, url) in feeds.enumerated() {
            let record = try #require(try store.feed(url))
            #expect(record.etag == "\"e\"" && record.title == "T")
            let history = try store.history(of: url)
            let read = history.entries(notOlderThan: nil, except: [])
            let stored = read.entries
            let expected = entries[url]!.filter { $0.id != "urn:1-29" }
            #expect(Set(stored.map(\.entry.id)) == Set(expected.map(\.id)))
            #expect(stored.map(\.entry) == stored.map { s in expected.first { $0.id == s.entry.id }! })
            #expect(history.sightings.count == 30)
            #expect(read.unreadable == (f == 1 ? 1 : 0))
        }
        do {
            let database = try SQLiteDatabase(path: path)
            var checks: [String] = []
            try database.prepare("PRAGMA user_version").query { checks.append("version \($0.integer(0) ?? 0)") }
            try database.prepare("PRAGMA page_size").query { checks.append("page \($0.integer(0) ?? 0)") }
            var compressed = 0
            try database.prepare("SELECT document FROM feed_entries").query { row in
                compressed += row.blob(0).first == FeedEntries.compressedVersion ? 1 : 0
            }
            checks.append("compressed \(compressed)")
            try database.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'entries'").query {
                checks.append("entries table \($0.integer(0) ?? 0)")
            }
            try database.prepare("PRAGMA foreign_key_check").query { _ in checks.append("foreign key broken") }
            #expect(checks == ["version 7", "page 8192", "compressed 2", "entries table 0"])
        }
        // A renamed feed keeps its entries (they name it by number).
        try store.rename(feed: feeds[0], to: "http://a.example/moved")
        #expect(
            try store.history(of: "http://a.example/moved").entries(notOlderThan: nil, except: []).entries.count == 30)
    }
}

/// A schema 4 file (each entry compressed alone in its feed's document) is
/// upgraded in place: each document compressed whole, the file vacuumed;
/// every entry reads back as before, a damaged one stays unreadable.
@Suite struct StateSchema5MigrationTests {
    @Test func schema4DocumentsAreCompressedWhole() throws {
        let workspace = try StateTests.Workspace("schema5")
        let path = workspace.state
        defer { withExtendedLifetime(workspace) {} }  // its folder goes when it does
        let feeds = ["http://a.example/feed", "http://b.example/feed"]
        let entries = EntryCompressionTests.entries(40)
        do {
            let old = try SQLiteDatabase(path: path)
            for sql in SQLiteStateStore.migrations.prefix(3) { try old.execute(sql) }
            try old.execute(SQLiteStateStore.migrations[3])
            try old.execute(SQLiteStateStore.schema4Cleanup)
            try old.execute("PRAGMA user_version = 4")
            for (f, url) in feeds.enumerated() {
                try old.prepare("INSERT INTO feeds(id, url, first_seen, etag) VALUES (?, ?, 10, '\"e\"')")
                    .run([.integer(Int64(f + 1)), .text(url)])
                let document = try EntryCompressionTests.version1Document(entries, damaging: f == 1 ? 7 : nil)
                try old.prepare("INSERT INTO feed_entries(feed, document) VALUES (?, ?)")
                    .run([.integer(Int64(f + 1)), .blob(document)])
            }
        }
        let before = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        let store = try SQLiteStateStore(path: path)
        let after = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        #expect(after < before, "\(before) → \(after) bytes")
        for (f, url) in feeds.enumerated() {
            #expect(try store.feed(url)?.etag == "\"e\"")
            let read = try store.history(of: url).entries(notOlderThan: nil, except: [])
            let expected = entries.filter { f == 0 || $0.id != "urn:7" }
            #expect(read.entries.map(\.entry).sorted { $0.id! < $1.id! } == expected.sorted { $0.id! < $1.id! })
            #expect(read.unreadable == (f == 1 ? 1 : 0))
        }
        let database = try SQLiteDatabase(path: path)
        var checks: [String] = []
        try database.prepare("PRAGMA user_version").query { checks.append("version \($0.integer(0) ?? 0)") }
        try database.prepare("SELECT document FROM feed_entries").query { row in
            checks.append(row.blob(0).first == FeedEntries.compressedVersion ? "whole" : "not whole")
        }
        #expect(checks == ["version 7", "whole", "whole"])
        // Schema 6 gave each document the facts that bound its entries' dates (`StoredDates`).
        let dates = try store.storedDates()
        #expect(dates.keys.sorted() == feeds)
        #expect(dates[feeds[0]]?.count == 40)
        #expect(dates[feeds[0]]?.latest == 1039)
    }
}
