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
