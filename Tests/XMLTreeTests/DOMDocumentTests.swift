import Foundation
import Testing
import TestSupport

@testable import XMLTree

@Suite struct DOMDocumentTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    func fixture(_ name: String) throws -> DOMDocument {
        let bytes = try [UInt8](Data(contentsOf: Self.fixtures.appendingPathComponent(name)))
        return try DOMDocument(parsing: bytes, url: "http://example.org/feed")
    }

    /// An element keeps its document (and so the libxml2 tree) alive.
    @Test func elementOutlivesTheDocumentReference() throws {
        func firstTitle() throws -> DOMElement {
            let document = try fixture("prefixes.xml")
            return try #require(document.root.children.first { $0.name == "title" })
        }
        let title = try firstTitle()
        #expect(title.text == "Prefixed & fine")
        #expect(title.parent?.name == "feed")
    }

    @Test func documentIsFreedWhenTheLastElementGoes() throws {
        weak var weakDocument: DOMDocument?
        do {
            let document = try fixture("prefixes.xml")
            weakDocument = document
            let root = document.root
            #expect(weakDocument != nil)
            _ = root.name
        }
        #expect(weakDocument == nil)
    }

    @Test func namespacesAreMatchedByURINotByPrefix() throws {
        let root = try fixture("prefixes.xml").root
        #expect(root.namespace == .atom)
        #expect(root.namespaceURI == "http://www.w3.org/2005/Atom")
        let entry = try #require(root.child("entry", in: .atom))
        #expect(entry.child("id", in: .atom)?.text == "1")
        #expect(entry.child("id", in: nil) == nil)
    }

    @Test func undeclaredPrefixMapsToItsConventionalNamespace() throws {
        let entry = try #require(try fixture("prefixes.xml").root.child("entry", in: .atom))
        let creator = try #require(entry.child("creator", in: .dc))
        #expect(creator.text == "undeclared prefix")
    }

    @Test func xpathUsesOurPrefixesWhateverTheDocumentUsed() throws {
        let document = try fixture("prefixes.xml")
        let ids = try document.select("/atom:feed/atom:entry/atom:id").map(\.text)
        #expect(ids == ["1", "2"])
        let entry = try #require(try document.select("//atom:entry").first)
        #expect(try document.select("atom:content/xhtml:div/xhtml:p", from: entry).count == 1)
        #expect(try document.string("count(//atom:entry)") == "2")
        #expect(throws: DOMError.self) { try document.select("//[") }
    }

    @Test func innerMarkupSerializesXHTMLWithoutPrefixes() throws {
        let document = try fixture("prefixes.xml")
        let div = try #require(try document.select("//xhtml:div").first)
        #expect(div.innerMarkup == #"<p class="c">Hello <b>world</b> &lt;3</p><br />"#)
    }

    @Test func languageAndBaseAreInherited() throws {
        let document = try fixture("prefixes.xml")
        let entries = try document.select("//atom:entry")
        let content = try #require(entries[0].child("content", in: .atom))
        #expect(content.language == "fr")
        #expect(content.baseChain == ["http://example.org/", "posts/"])
        #expect(entries[1].language == "en")
    }

    @Test func htmlNamedEntitiesBecomeCharacters() throws {
        let document = try DOMDocument(parsing: Array("<r>caf&eacute;&nbsp;&copy; &bogus; a&b</r>".utf8))
        #expect(document.root.text == "café\u{A0}© &bogus; a&b")
        #expect(!document.warnings.contains { $0.contains("not well-formed") })
    }

    @Test func recoverModeKeepsWhatWasParsed() throws {
        let document = try DOMDocument(parsing: Array("<r><a>one</a><b>two".utf8))
        #expect(!document.isWellFormed)
        #expect(document.root.children.map(\.text) == ["one", "two"])
    }

    @Test func documentsOverTheSizeLimitAreRefused() {
        #expect(throws: DOMError.self) {
            try DOMDocument(parsing: Array(repeating: UInt8(ascii: " "), count: 100), limits: .init(maximumBytes: 10))
        }
    }

    static let encodings: [([UInt8], String)] = [
        ([0xFF, 0xFE] + Array("<r>é</r>".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }, "é"),
        (Array("<?xml version='1.0' encoding='ISO-8859-1'?><r>".utf8) + [0xE9] + Array("</r>".utf8), "é"),
        (Array("<?xml version='1.0' encoding='koi8-r'?><r>".utf8) + [0xC1] + Array("</r>".utf8), "а"),
    ]

    @Test(arguments: encodings)
    func encodingIsDecided(_ bytes: [UInt8], _ expected: String) throws {
        #expect(try DOMDocument(parsing: bytes).root.text == expected)
    }

    /// Well-formed documents whose text repair still changes: C1 controls,
    /// raw or as references, are the windows-1252 characters they stood for.
    static let repairedThoughWellFormed: [(String, String)] = [
        ("<r>don&#146;t</r>", "don\u{2019}t"),
        ("<r>don&#x92;t</r>", "don\u{2019}t"),
        ("<r>don\u{92}t</r>", "don\u{2019}t"),
        ("<r>&#150; &#160;</r>", "\u{2013} \u{A0}"),
    ]

    @Test(arguments: repairedThoughWellFormed)
    func c1ControlsAreRepairedInWellFormedDocuments(_ text: String, _ expected: String) throws {
        #expect(try DOMDocument(parsing: Array(text.utf8)).root.text == expected)
    }

    /// Plain, well-formed UTF-8 skips the repair pass. Over every fixture
    /// (and the shared corpora when present) that must give the same tree
    /// as repairing first.
    @Test(.tags(.corpus)) func skippingRepairNeverChangesADocument() throws {
        var roots = [Self.fixtures, Self.fixtures.appendingPathComponent("../../FeedParseTests/Fixtures").standardized]
        let corpora = SharedCorpora.folder
        let hasCorpora = corpora != nil
        if let corpora { roots.append(corpora) }
        var compared = 0
        for root in roots {
            let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)!
            for case let file as URL in files where ["xml", "rss", "atom", "rdf"].contains(file.pathExtension) {
                let bytes = try [UInt8](Data(contentsOf: file))
                var repairing = DOMDocument.Limits()
                repairing.alwaysRepairs = true
                guard let asIs = try? DOMDocument(parsing: bytes), asIs.isWellFormed,
                    let repaired = try? DOMDocument(parsing: bytes, limits: repairing)
                else { continue }
                #expect(asIs.root.innerMarkup == repaired.root.innerMarkup, "\(file.path)")
                compared += 1
            }
        }
        // A user's clone has no ../shared: the project's own fixtures alone are fewer.
        #expect(compared >= (hasCorpora ? 20 : 5), "only \(compared) documents compared")
    }
}
