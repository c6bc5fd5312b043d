import Testing

@testable import XMLTree

/// A document declared 8-bit whose items are UTF-8 (a Latin-1 template
/// around UTF-8 content, as a real Danish feed has it): read sequence by
/// sequence, not turned into mojibake.
@Suite struct MixedEncodingTests {
    static func text(_ body: [UInt8], declaring encoding: String) throws -> String {
        let bytes = Array("<?xml version=\"1.0\" encoding=\"\(encoding)\"?><r>".utf8) + body + Array("</r>".utf8)
        return try DOMDocument(parsing: bytes).root.text
    }

    @Test func mostlyUTF8UnderALatin1LabelKeepsItsUTF8() throws {
        // "Brøndby" and "kæmper" in UTF-8, then a stray Latin-1 "ø" (0xF8).
        let body: [UInt8] = Array("Br".utf8) + [0xC3, 0xB8] + Array("ndby k".utf8) + [0xC3, 0xA6] + Array("mper bes".utf8)
            + [0xF8] + Array("g".utf8)
        #expect(try Self.text(body, declaring: "ISO-8859-1") == "Brøndby kæmper besøg")
    }

    @Test func aLatin1DocumentStaysLatin1() throws {
        // Two Latin-1 letters and nothing that is well-formed UTF-8.
        let body: [UInt8] = Array("caf".utf8) + [0xE9] + Array(" na".utf8) + [0xEF] + Array("ve".utf8)
        #expect(try Self.text(body, declaring: "ISO-8859-1") == "café naïve")
    }
}
