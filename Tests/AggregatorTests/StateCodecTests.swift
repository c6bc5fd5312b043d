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
