import FeedModel
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
