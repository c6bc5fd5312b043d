import FeedModel
import Testing

@testable import FeedParse

/// Person strings (RSS `author`, `managingEditor`, `dc:creator`,
/// `itunes:author`, `media:credit`): every form a feed writes, and the
/// strings that look like one but are not.
@Suite struct PeopleTests {
    static let forms: [(String, Person)] = [
        // RFC 5322 name-addr.
        ("Jo Smith <jo@example.com>", Person(name: "Jo Smith", email: "jo@example.com")),
        ("\"Jo Smith\" <jo@example.com>", Person(name: "Jo Smith", email: "jo@example.com")),
        ("<jo@example.com>", Person(email: "jo@example.com")),
        ("Jo Smith <mailto:jo@example.com>", Person(name: "Jo Smith", email: "jo@example.com")),
        // RSS 2.0's own example, and the other way round.
        ("jo@example.com (Jo Smith)", Person(name: "Jo Smith", email: "jo@example.com")),
        ("Jo Smith (jo@example.com)", Person(name: "Jo Smith", email: "jo@example.com")),
        ("jo@example.com ()", Person(email: "jo@example.com")),
        // Bare addresses.
        ("jo@example.com", Person(email: "jo@example.com")),
        ("mailto:jo@example.com", Person(email: "jo@example.com")),
        ("MAILTO:jo@localhost", Person(email: "jo@localhost")),
        ("  jo@example.com  ", Person(email: "jo@example.com")),
        // Names, whole.
        ("Jo Smith", Person(name: "Jo Smith")),
        (
            "Nick Ames (now), Ed Aarons and Ben Fisher (earlier)",
            Person(name: "Nick Ames (now), Ed Aarons and Ben Fisher (earlier)")
        ),
        ("Jo Smith (editor)", Person(name: "Jo Smith (editor)")),
        ("Jo Smith jo@example.com", Person(name: "Jo Smith jo@example.com")),
        ("@jo", Person(name: "@jo")),
        ("jo@", Person(name: "jo@")),
        ("jo@@example.com", Person(name: "jo@@example.com")),
        ("a@b@c", Person(name: "a@b@c")),
        ("jo@example.com.", Person(name: "jo@example.com.")),
        ("Jo <not an address>", Person(name: "Jo <not an address>")),
        ("Team (a@b.c, d@e.f)", Person(name: "Team (a@b.c, d@e.f)")),
    ]

    @Test(arguments: forms)
    func readsPersonString(_ text: String, _ expected: Person) {
        #expect(MappingContext.person(fromRSS: text) == expected)
    }

    @Test func emptyStringIsNobody() {
        #expect(MappingContext.person(fromRSS: "   ").isEmpty)
    }

    @Test(arguments: [
        "jo@example.com", "j.o+tag@sub.example.co.uk", "jo@localhost", "x@y",
    ])
    func acceptsAddress(_ text: String) {
        #expect(Person.isAddress(text))
    }

    @Test(arguments: [
        "", "@", "jo", "jo@", "@example.com", "jo@@example.com", "jo@a@b", "jo smith@example.com", "jo@example.com.",
        "jo@.example.com", "<jo@example.com>", "(jo@example.com)", "jo@example.com,", "\"jo\"@example.com",
    ])
    func refusesNonAddress(_ text: String) {
        #expect(!Person.isAddress(text))
    }

    @Test func emailIsNeverANonAddress() throws {
        // Whatever the string, an email that comes out is an address.
        for (text, _) in Self.forms {
            if let email = MappingContext.person(fromRSS: text).email {
                #expect(Person.isAddress(email), "\(text) gave email \(email)")
            }
        }
    }
}

/// Person elements with children, as some RSS feeds write them.
@Suite struct PersonElementTests {
    func authors(_ item: String, channel: String = "") throws -> (entry: [Person], feed: [Person]) {
        let document = """
            <rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>t</title>\(channel)
            <item><title>x</title>\(item)</item></channel></rss>
            """
        let feed = try FeedParser.parse(Array(document.utf8), options: .init(url: nil))
        return (feed.entries[0].authors, feed.metadata.authors)
    }

    @Test func anAuthorWithChildrenIsItsNameNotEveryChildRunTogether() throws {
        // Google Cloud's blog: a name and a job title.
        let cloud = try authors(
            "<author><name>Diane Chaleff</name><title>Product Manager, Office of the CTO</title></author>")
        #expect(cloud.entry == [Person(name: "Diane Chaleff")])
        let full = try authors(
            "<dc:creator><name>Ann</name><email>ann@example.org</email><uri>https://ann.example/</uri></dc:creator>")
        #expect(full.entry == [Person(name: "Ann", email: "ann@example.org", uri: "https://ann.example/")])
        // Children that are no person's parts: the text, as before.
        let marked = try authors("<author><b>Bob</b></author>")
        #expect(marked.entry.first?.name == "Bob")
        let channel = try authors("", channel: "<managingEditor><name>Eve</name><title>Editor</title></managingEditor>")
        #expect(channel.feed.first?.name == "Eve")
        #expect(
            try authors("<author>jo@example.com (Jo Smith)</author>").entry == [
                Person(name: "Jo Smith", email: "jo@example.com")
            ])
    }
}

/// What a feed says of how often it changes: RSS 2.0's `ttl`, the Syndication module.
@Suite struct UpdateHintTests {
    func metadata(_ channel: String) throws -> FeedMetadata {
        let document = """
            <rss version="2.0" xmlns:sy="http://purl.org/rss/1.0/modules/syndication/"><channel><title>t</title>
            \(channel)<item><title>x</title></item></channel></rss>
            """
        return try FeedParser.parse(Array(document.utf8), options: .init(url: nil)).metadata
    }

    @Test func ttlInMinutes() throws {
        #expect(try metadata("<ttl>60</ttl>").ttlMinutes == 60)
        #expect(try metadata("<ttl> 1440 </ttl>").ttlMinutes == 1440)
        #expect(try metadata("<ttl>soon</ttl>").ttlMinutes == nil)
        #expect(try metadata("<ttl>0</ttl>").ttlMinutes == nil)
    }

    /// RSS 2.0's skipHours (0–23 GMT) and skipDays (the days' English names).
    @Test func skippedHoursAndDays() throws {
        let hours = try metadata("<skipHours><hour>0</hour><hour> 13 </hour><hour>24</hour><hour>25</hour></skipHours>")
        #expect(hours.skipHours == [0, 13], "24 is midnight; 25 is no hour")
        let days = try metadata("<skipDays><day>Saturday</day><day>sunday</day><day>Someday</day></skipDays>")
        #expect(days.skipDays == [6, 7])
        #expect(try metadata("").skipHours.isEmpty)
    }

    @Test func syndicationPeriodOverFrequency() throws {
        #expect(
            try metadata("<sy:updatePeriod>hourly</sy:updatePeriod><sy:updateFrequency>2</sy:updateFrequency>")
                .updateInterval == 1_800)
        #expect(try metadata("<sy:updatePeriod>weekly</sy:updatePeriod>").updateInterval == 604_800)
        #expect(
            try metadata("<sy:updateFrequency>4</sy:updateFrequency>").updateInterval == 21_600, "daily when no period")
        #expect(try metadata("<sy:updatePeriod>sometimes</sy:updatePeriod>").updateInterval == nil)
        #expect(try metadata("").updateInterval == nil)
    }
}
