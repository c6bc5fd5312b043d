import Testing

@testable import XMLTree

/// Numeric character references, as XML 1.0 section 4.1 defines them, and
/// the lenient readings feeds need.
@Suite struct CharacterReferenceTests {
    func title(_ document: String) throws -> String? {
        try DOMDocument(parsing: Array(document.utf8)).root.child("title")?.text
    }

    @Test func decimalAndLowerCaseHexAreRead() throws {
        #expect(try title("<feed><title>&#65;&#x42;&#x0043;</title></feed>") == "ABC")
    }

    /// XML allows only `&#x`; `&#X41;` is an HTML habit that still means `A`.
    @Test func upperCaseHexMarkerIsRead() throws {
        #expect(try title("<feed><title>&#X41;&#X62;</title></feed>") == "Ab")
    }

    /// A C1 control by number is the windows-1252 character it was meant to be.
    @Test func c1ReferenceBecomesWindows1252() throws {
        #expect(try title("<feed><title>don&#146;t &#X93;q&#x94;</title></feed>") == "don\u{2019}t \u{201C}q\u{201D}")
    }
}
