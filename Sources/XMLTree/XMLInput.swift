/// A document's bytes made ready for libxml2: decoded to UTF-8 by the
/// encoding rules, then repaired (see `MarkupRepair`), with a warning for
/// each decision a reader may want to know about.
struct XMLInput {
    /// nil when the original bytes (minus `offset`) can be parsed as they are.
    var replacement: [UInt8]?
    var offset: Int
    var warnings: [String]

    static func prepare(_ bytes: UnsafeBufferPointer<UInt8>, contentType: String?) -> XMLInput {
        var warnings: [String] = []
        let decision = CharacterEncoding.decide(
            bytes, httpCharset: contentType.flatMap(CharacterEncoding.charset(ofContentType:)))
        let body = UnsafeBufferPointer(rebasing: bytes[decision.bomLength...])
        var decoded: [UInt8]? = nil
        switch decision.name {
        case "utf-8":
            decoded = decodeAsUTF8(body, declared: decision, warnings: &warnings)
        case "windows-1252":
            if isASCII(body) {
                decoded = nil
            } else if UTF8Validation.isValid(body) {
                // Multi-byte UTF-8 sequences are all but impossible in real
                // windows-1252 text; this is a mislabelled UTF-8 feed.
                warnings.append(
                    "declared \(decision.name) (\(decision.source.rawValue)) but the bytes are UTF-8; read as UTF-8")
                decoded = nil
            } else {
                decoded = Windows1252.decode(body)
            }
        default:
            if let transcoder = Transcoder(from: decision.name) {
                decoded = transcoder.convert(body)
            } else {
                warnings.append("unknown encoding \"\(decision.name)\" (\(decision.source.rawValue)); read as UTF-8")
                decoded = decodeAsUTF8(body, declared: decision, warnings: &warnings)
            }
        }
        let repair: MarkupRepair.Result
        if let decoded {
            repair = decoded.withUnsafeBufferPointer { MarkupRepair.repair($0) }
        } else {
            repair = MarkupRepair.repair(body)
        }
        if repair.doctypeDeclaredEntities {
            warnings.append(
                "document type declaration removed; only its plain-text internal entities were expanded")
        }
        if repair.entitiesLeftUnexpanded > 0 {
            warnings.append(
                "\(repair.entitiesLeftUnexpanded) entity references left unexpanded: expansion limit reached")
        }
        if repair.droppedCharacters > 0 {
            warnings.append("\(repair.droppedCharacters) characters that XML forbids were dropped")
        }
        return XMLInput(
            replacement: repair.bytes ?? decoded, offset: decision.bomLength, warnings: warnings)
    }

    private static func decodeAsUTF8(
        _ body: UnsafeBufferPointer<UInt8>, declared: CharacterEncoding.Decision, warnings: inout [String]
    ) -> [UInt8]? {
        if UTF8Validation.isValid(body) { return nil }
        warnings.append("bytes are not valid UTF-8 (\(declared.source.rawValue)); read as windows-1252")
        return Windows1252.decode(body)
    }

    private static func isASCII(_ body: UnsafeBufferPointer<UInt8>) -> Bool {
        !body.contains { $0 >= 0x80 }
    }

    /// Calls `body` with the bytes to parse.
    func withBytes<R>(original: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let replacement {
            return replacement.withUnsafeBufferPointer(body)
        }
        return body(UnsafeBufferPointer(rebasing: original[offset...]))
    }
}
