import Testing

@testable import XMLTree

/// The encoding order of RFC 7303 section 3 and XML 1.0 appendix F.
@Suite struct CharacterEncodingTests {
    /// `<r>` + body + `</r>`, after an optional declaration.
    static func document(declaring encoding: String?, _ body: [UInt8]) -> [UInt8] {
        let declaration = encoding.map { "<?xml version=\"1.0\" encoding=\"\($0)\"?>" } ?? "<?xml version=\"1.0\"?>"
        return Array(declaration.utf8) + Array("<r>".utf8) + body + Array("</r>".utf8)
    }

    func text(_ bytes: [UInt8], contentType: String? = nil) throws -> String {
        try DOMDocument(parsing: bytes, contentType: contentType).root.text
    }

    func warnings(_ bytes: [UInt8], contentType: String? = nil) throws -> [String] {
        try DOMDocument(parsing: bytes, contentType: contentType).warnings
    }

    // 0xC1 is Á in windows-1252; in koi8-r it is а (U+0430).
    static let c1: [UInt8] = [0xC1]

    @Test(arguments: [
        "application/xml", "text/xml", "application/rss+xml", "application/atom+xml", "text/rss+xml",
        "application/rdf+xml", "Application/XML ; Charset=\"koi8-r\"",
    ])
    func xmlMediaTypeCharsetWinsOverTheDeclaration(_ type: String) throws {
        let contentType = type.contains("harset") ? type : "\(type); charset=koi8-r"
        #expect(try text(Self.document(declaring: "iso-8859-1", Self.c1), contentType: contentType) == "\u{430}")
    }

    @Test(arguments: ["text/html", "text/plain", "application/octet-stream", "application/json"])
    func otherMediaTypesLetTheDeclarationWin(_ type: String) throws {
        let bytes = Self.document(declaring: "koi8-r", Self.c1)
        #expect(try text(bytes, contentType: "\(type); charset=iso-8859-1") == "\u{430}")
        // Without a declaration, their charset still counts.
        #expect(try text(Self.document(declaring: nil, Self.c1), contentType: "\(type); charset=koi8-r") == "\u{430}")
    }

    /// RFC 7303 reads `text/xml` without a charset like `application/xml`
    /// (RFC 3023's US-ASCII default is gone): the declaration decides.
    @Test func textXMLWithoutCharsetFollowsTheDeclaration() throws {
        #expect(try text(Self.document(declaring: "koi8-r", Self.c1), contentType: "text/xml") == "\u{430}")
    }

    @Test func byteOrderMarkWinsOverTheHTTPCharset() throws {
        let bytes = [0xEF, 0xBB, 0xBF] + Self.document(declaring: nil, Array("é".utf8))
        #expect(try text(bytes, contentType: "application/xml; charset=koi8-r") == "é")
    }

    @Test func utf16WithAndWithoutMark() throws {
        let source = "<?xml version=\"1.0\" encoding=\"utf-16\"?><r>é€</r>"
        let le = source.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let be = source.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        #expect(try text(le) == "é€")
        #expect(try text(be) == "é€")
        #expect(try text([0xFF, 0xFE] + le) == "é€")
        #expect(try text([0xFE, 0xFF] + be) == "é€")
    }

    @Test func utf32WithoutMark() throws {
        let source = "<r>é</r>"
        let be = source.unicodeScalars.flatMap { s in (0..<4).reversed().map { UInt8((s.value >> ($0 * 8)) & 0xFF) } }
        #expect(try text(be) == "é")
    }

    /// A 16-bit label on bytes whose `<?xml` is plain ASCII is wrong.
    @Test func wideLabelOnASCIIBytesIsIgnored() throws {
        let bytes = Self.document(declaring: "utf-16", Array("café".utf8))
        #expect(try text(bytes) == "café")
        #expect(try text(bytes, contentType: "application/xml; charset=utf-16") == "café")
    }

    /// Appendix F: `4C 6F A7 94` is `<?xm` in EBCDIC; the declaration, read in
    /// EBCDIC, names the code page.
    @Test func ebcdicDeclarationIsRead() throws {
        let source = "<?xml version=\"1.0\" encoding=\"cp500\"?><r>[x]</r>"
        let transcoder = try #require(Transcoder(from: "UTF-8", to: "CP500"))
        let bytes = Array(source.utf8).withUnsafeBufferPointer { transcoder.convert($0) }
        #expect(bytes.starts(with: [0x4C, 0x6F, 0xA7, 0x94]))
        #expect(try text(bytes) == "[x]")
    }

    @Test(arguments: [
        ("cp437", [UInt8(0x80)], "\u{C7}"), ("ibm437", [0x80], "\u{C7}"), ("cspc8codepage437", [0x80], "\u{C7}"),
        ("cp_is", [0x80], "\u{C7}"), ("macroman", [0x80], "\u{C4}"), ("x-mac-roman", [0x80], "\u{C4}"),
        ("maccentraleurope", [0x80], "\u{C4}"), ("windows-1251", [0x80], "\u{402}"), ("koi8-u", [0xA4], "\u{454}"),
        ("shift_jis", [0x82, 0xA0], "\u{3042}"), ("x-sjis", [0x82, 0xA0], "\u{3042}"),
        ("euc-kr", [0xB3, 0xE2], "\u{B144}"),
        ("ks_c_5601-1987", [0xB3, 0xE2], "\u{B144}"), ("gb2312", [0xC4, 0xE3], "\u{4F60}"),
        ("US-ASCII", [0x93], "\u{201C}"),
        ("ISO-8859-1", [0x93], "\u{201C}"),
    ])
    func declaredLabelsAreUnderstood(_ label: String, _ bytes: [UInt8], _ expected: String) throws {
        #expect(try text(Self.document(declaring: label, bytes)) == expected)
    }

    @Test func unknownLabelsFallThroughWithAWarning() throws {
        let bytes = Self.document(declaring: "x-no-such-charset", Array("é".utf8))
        #expect(try text(bytes) == "é")
        #expect(try warnings(bytes).contains { $0.contains("unknown encoding \"x-no-such-charset\"") })
        // An unknown HTTP charset leaves the declaration to decide.
        let koi = Self.document(declaring: "koi8-r", Self.c1)
        #expect(try text(koi, contentType: "application/xml; charset=bogus") == "\u{430}")
    }

    /// Mostly UTF-8 with a few broken sequences: each becomes U+FFFD, the
    /// rest stays UTF-8 (reading it all as windows-1252 would garble it).
    @Test func brokenSequencesInUTF8BecomeReplacementCharacters() throws {
        let body = Array("√ π ∞ ".utf8) + [0xF0, 0x9D, 0x92] + Array("x".utf8) + [0xFF]
        let bytes = Self.document(declaring: "utf-8", body)
        #expect(try text(bytes) == "√ π ∞ \u{FFFD}x\u{FFFD}")
        #expect(try warnings(bytes).contains { $0.contains("replaced by U+FFFD") })
    }

    /// Without multi-byte sequences, invalid bytes mean an 8-bit document.
    @Test func eightBitTextLabelledUTF8IsReadAsWindows1252() throws {
        let bytes = Self.document(declaring: nil, Array("caf".utf8) + [0xE9, 0x20, 0x93, 0x71, 0x94])
        #expect(try text(bytes) == "café \u{201C}q\u{201D}")
        #expect(try warnings(bytes).contains { $0.contains("windows-1252") })
    }

    @Test func mediaTypeParsing() {
        let media = MediaType(parsing: "Application/Atom+XML; type=feed; charset='UTF-8'")
        #expect(media.type == "application/atom+xml")
        #expect(media.charset == "UTF-8")
        #expect(media.isXML)
        #expect(!MediaType(parsing: "text/html").isXML)
        #expect(MediaType(parsing: "text/html").charset == nil)
    }
}

@Suite struct MislabelledEncodingTests {
    /// UTF-8 bytes under another label (a server's default charset, a stale
    /// declaration) are read as UTF-8, with a warning.
    @Test(arguments: ["koi8-r", "iso-8859-2", "shift_jis", "windows-1252"])
    func utf8UnderAnotherLabelIsReadAsUTF8(_ label: String) throws {
        let bytes = CharacterEncodingTests.document(declaring: label, Array("Grüße, 東京".utf8))
        let document = try DOMDocument(parsing: bytes)
        #expect(document.root.text == "Grüße, 東京")
        #expect(document.warnings.contains { $0.contains("but the bytes are UTF-8") })
        let served = try DOMDocument(parsing: bytes, contentType: "text/xml; charset=\(label)")
        #expect(served.root.text == "Grüße, 東京")
    }
}
