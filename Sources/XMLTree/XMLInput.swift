import Glibc

/// A document's bytes made ready for libxml2: decoded to UTF-8 by the
/// encoding rules, with a warning for each decision a reader may want to
/// know about. `repaired()` then applies `MarkupRepair`; a document that is
/// plain UTF-8 (`mayParseAsIs`) is first tried without it.
struct XMLInput {
    /// The decoded bytes, or nil when the original ones (minus `offset`)
    /// are already UTF-8.
    var decoded: [UInt8]?
    var offset: Int
    var warnings: [String]
    /// Valid UTF-8 as received, without C1 controls and without a document
    /// type declaration: when libxml2 finds it well-formed, repair would
    /// change nothing, so the repair pass can be skipped.
    var mayParseAsIs: Bool
    /// How many raw HTML void elements the repair closed.
    var closedVoidElements = 0

    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, contentType: String?) -> XMLInput {
        var warnings: [String] = []
        let candidates = CharacterEncoding.candidates(bytes, contentType: contentType)
        for decision in candidates {
            let body = UnsafeBufferPointer(rebasing: bytes[decision.bomLength...])
            var decoded: [UInt8]? = nil
            var plain = false
            switch decision.name {
            case "utf-8":
                (decoded, plain) = readAsUTF8(body, decision: decision, warnings: &warnings)
            case "windows-1252" where isASCII(body):
                plain = true
            case "windows-1252":
                if isMislabelledUTF8(body, decision: decision, warnings: &warnings) {
                    plain = !UTF8Validation.hasC1Controls(body)
                } else {
                    decoded =
                        readAsMostlyUTF8(body, decision: decision, warnings: &warnings) ?? Windows1252.decode(body)
                }
            default:
                guard
                    let transcoder = CharacterEncoding.iconvSpellings(of: decision.name).lazy
                        .compactMap({ Transcoder(from: $0) }).first
                else {
                    warnings.append("unknown encoding \"\(decision.name)\" (\(decision.source.rawValue)) ignored")
                    continue
                }
                if isMislabelledUTF8(body, decision: decision, warnings: &warnings) {
                    plain = !UTF8Validation.hasC1Controls(body)
                } else {
                    decoded = transcoder.convert(body)
                }
            }
            return XMLInput(
                decoded: decoded, offset: decision.bomLength, warnings: warnings,
                mayParseAsIs: plain && !hasDocumentTypeDeclaration(body) && !hasC1CharacterReference(body))
        }
        preconditionFailure("the candidates end with UTF-8, which needs no converter")
    }

    /// Whether bytes labelled with another encoding are UTF-8 all the same:
    /// valid UTF-8 with multi-byte sequences is all but impossible in real
    /// text of an 8-bit or East Asian encoding (a server's default charset,
    /// a template's stale declaration). Such a document is read as UTF-8.
    private static func isMislabelledUTF8(
        _ body: UnsafeBufferPointer<UInt8>, decision: CharacterEncoding.Decision, warnings: inout [String]
    ) -> Bool {
        // What a byte order mark or byte pattern says is certain.
        guard decision.source != .byteOrderMark, decision.source != .bytePattern, !isASCII(body),
            case .valid = UTF8Validation.check(body)
        else { return false }
        warnings.append(
            "declared \(decision.name) (\(decision.source.rawValue)) but the bytes are UTF-8; read as UTF-8")
        return true
    }

    /// Bytes labelled 8-bit that are mostly UTF-8 (more well-formed
    /// multi-byte sequences than stray high bytes: UTF-8 items in a Latin-1
    /// template, say) are read sequence by sequence: UTF-8 where it is well
    /// formed, windows-1252 for each other byte. nil: an 8-bit document.
    private static func readAsMostlyUTF8(
        _ body: UnsafeBufferPointer<UInt8>, decision: CharacterEncoding.Decision, warnings: inout [String]
    ) -> [UInt8]? {
        guard decision.source != .byteOrderMark, decision.source != .bytePattern else { return nil }
        let mixed = UTF8Validation.replacingInvalidSequences(body, windows1252: true)
        guard mixed.wellFormedMultiByte > mixed.replaced else { return nil }
        warnings.append(
            "declared \(decision.name) (\(decision.source.rawValue)) but mostly UTF-8: "
                + "\(mixed.replaced) other bytes read as windows-1252")
        return mixed.bytes
    }

    /// Bytes taken to be UTF-8: as they are when valid (plain unless they
    /// hold C1 controls). Invalid bytes in a document that is mostly UTF-8
    /// (more well-formed multi-byte sequences than broken ones) become
    /// U+FFFD, one per broken sequence; a document with few or no
    /// multi-byte sequences is an 8-bit one and is read as windows-1252.
    private static func readAsUTF8(
        _ body: UnsafeBufferPointer<UInt8>, decision: CharacterEncoding.Decision, warnings: inout [String]
    ) -> (decoded: [UInt8]?, plain: Bool) {
        switch UTF8Validation.check(body) {
        case .valid(let hasC1Controls):
            return (nil, !hasC1Controls)
        case .invalid:
            let repair = UTF8Validation.replacingInvalidSequences(body)
            if repair.wellFormedMultiByte > repair.replaced {
                warnings.append(
                    "bytes are not valid UTF-8 (\(decision.source.rawValue)): \(repair.replaced) broken sequences replaced by U+FFFD"
                )
                return (repair.bytes, false)
            }
            warnings.append("bytes are not valid UTF-8 (\(decision.source.rawValue)); read as windows-1252")
            return (Windows1252.decode(body), false)
        }
    }

    /// The bytes after repair, with the repair's warnings added.
    /// - Parameter closingVoidElements: the second pass for a document the
    ///   first left broken (see `MarkupRepair.repair`).
    func repaired(original: UnsafeBufferPointer<UInt8>, closingVoidElements: Bool = false) -> XMLInput {
        let repair = withBytes(original: original) {
            MarkupRepair.repair($0, closingVoidElements: closingVoidElements)
        }
        var warnings = warnings
        if repair.doctypeDeclaredEntities {
            warnings.append(
                "document type declaration removed; only its plain-text internal entities were expanded")
        }
        if repair.entitiesLeftUnexpanded > 0 {
            warnings.append(
                "\(repair.entitiesLeftUnexpanded) entity references left unexpanded: expansion limit reached")
        }
        if repair.closedVoidElements > 0 {
            warnings.append("\(repair.closedVoidElements) unclosed HTML void elements (<br>, <img>) closed")
        }
        if repair.droppedCharacters > 0 {
            warnings.append("\(repair.droppedCharacters) characters that XML forbids were dropped")
        }
        return XMLInput(
            decoded: repair.bytes ?? decoded, offset: offset, warnings: warnings, mayParseAsIs: false,
            closedVoidElements: repair.closedVoidElements)
    }

    private static func isASCII(_ body: UnsafeBufferPointer<UInt8>) -> Bool {
        !body.contains { $0 >= 0x80 }
    }

    /// Whether the prolog (what comes before the first element) holds
    /// anything but the XML declaration, processing instructions, comments
    /// and whitespace: a `<!DOCTYPE`, or text that is not XML at all.
    /// Either way the document goes through repair.
    static func hasDocumentTypeDeclaration(_ body: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = body.count
        /// The index just after the next `literal` at or after `start`.
        func end(of literal: StaticString, from start: Int) -> Int? {
            let count = literal.utf8CodeUnitCount
            var k = start
            while k + count <= n {
                if (0..<count).allSatisfy({ body[k + $0] == literal.utf8Start[$0] }) { return k + count }
                k += 1
            }
            return nil
        }
        while i < n {
            switch body[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            case UInt8(ascii: "<"):
                guard i + 1 < n else { return true }
                switch body[i + 1] {
                case UInt8(ascii: "?"):
                    guard let end = end(of: "?>", from: i + 2) else { return true }
                    i = end
                case UInt8(ascii: "!"):
                    guard i + 3 < n, body[i + 2] == UInt8(ascii: "-"), body[i + 3] == UInt8(ascii: "-"),
                        let end = end(of: "-->", from: i + 4)
                    else { return true }
                    i = end
                default: return false  // the root element
                }
            default: return true
            }
        }
        return true
    }

    /// Whether a numeric character reference names a C1 control
    /// (`&#146;`, `&#x92;`): repair maps those to the windows-1252
    /// characters they were meant to be, which libxml2 would not.
    static func hasC1CharacterReference(_ body: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = body.baseAddress else { return false }
        let n = body.count
        var i = 0
        while i < n, let hit = memchr(base + i, Int32(UInt8(ascii: "&")), n - i) {
            var k = UnsafeRawPointer(hit).assumingMemoryBound(to: UInt8.self) - base + 1
            i = k
            guard k < n, body[k] == UInt8(ascii: "#") else { continue }
            k += 1
            let hex = k < n && (body[k] | 0x20) == UInt8(ascii: "x")
            if hex { k += 1 }
            var value = 0
            while k < n, value < 0x110000 {
                let b = body[k]
                if b >= 0x30 && b <= 0x39 {
                    value = value * (hex ? 16 : 10) + Int(b - 0x30)
                } else if hex, (b | 0x20) >= UInt8(ascii: "a"), (b | 0x20) <= UInt8(ascii: "f") {
                    value = value * 16 + Int((b | 0x20) - UInt8(ascii: "a") + 10)
                } else {
                    break
                }
                k += 1
            }
            if value >= 0x80 && value <= 0x9F { return true }
        }
        return false
    }

    /// Calls `body` with the bytes to parse.
    func withBytes<R>(original: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let decoded {
            return decoded.withUnsafeBufferPointer(body)
        }
        return body(UnsafeBufferPointer(rebasing: original[offset...]))
    }
}
