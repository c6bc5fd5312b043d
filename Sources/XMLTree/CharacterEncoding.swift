/// Deciding which character encoding a document's bytes are in.
///
/// The order is the one DESIGN.md gives: a byte order mark, then the charset
/// of the HTTP Content-Type, then the XML declaration, then UTF-8 (with a
/// windows-1252 retry when the bytes are not UTF-8, decided by the caller).
enum CharacterEncoding {
    /// What the sniffing found: the encoding's canonical name, where it came
    /// from, and how many leading bytes are a byte order mark.
    struct Decision: Equatable {
        enum Source: String {
            case byteOrderMark = "byte order mark", http = "HTTP charset", declaration = "XML declaration", assumed
        }
        var name: String
        var source: Source
        var bomLength: Int
    }

    static func decide(_ bytes: UnsafeBufferPointer<UInt8>, httpCharset: String?) -> Decision {
        if let bom = byteOrderMark(bytes) { return bom }
        if let charset = httpCharset.map(canonicalName), !charset.isEmpty {
            return Decision(name: charset, source: .http, bomLength: 0)
        }
        if let sniffed = sniffUTF16WithoutMark(bytes) {
            return Decision(name: sniffed, source: .byteOrderMark, bomLength: 0)
        }
        if let declared = declaredEncoding(bytes) {
            return Decision(name: canonicalName(declared), source: .declaration, bomLength: 0)
        }
        return Decision(name: "utf-8", source: .assumed, bomLength: 0)
    }

    static func byteOrderMark(_ b: UnsafeBufferPointer<UInt8>) -> Decision? {
        func has(_ prefix: [UInt8]) -> Bool { b.count >= prefix.count && zip(b, prefix).allSatisfy { $0 == $1 } }
        if has([0xEF, 0xBB, 0xBF]) { return Decision(name: "utf-8", source: .byteOrderMark, bomLength: 3) }
        if has([0x00, 0x00, 0xFE, 0xFF]) { return Decision(name: "utf-32be", source: .byteOrderMark, bomLength: 4) }
        if has([0xFF, 0xFE, 0x00, 0x00]) { return Decision(name: "utf-32le", source: .byteOrderMark, bomLength: 4) }
        if has([0xFE, 0xFF]) { return Decision(name: "utf-16be", source: .byteOrderMark, bomLength: 2) }
        if has([0xFF, 0xFE]) { return Decision(name: "utf-16le", source: .byteOrderMark, bomLength: 2) }
        return nil
    }

    /// UTF-16 without a mark still starts with `<` as two bytes.
    static func sniffUTF16WithoutMark(_ b: UnsafeBufferPointer<UInt8>) -> String? {
        guard b.count >= 4 else { return nil }
        if b[0] == 0x3C && b[1] == 0 && b[2] == 0x3F && b[3] == 0 { return "utf-16le" }
        if b[0] == 0 && b[1] == 0x3C && b[2] == 0 && b[3] == 0x3F { return "utf-16be" }
        return nil
    }

    /// The `encoding` pseudo-attribute of an XML declaration at the start.
    static func declaredEncoding(_ b: UnsafeBufferPointer<UInt8>) -> String? {
        var start = 0
        while start < b.count, b[start] == 0x20 || b[start] == 0x09 || b[start] == 0x0A || b[start] == 0x0D {
            start += 1
        }
        let head = b[start..<min(b.count, start + 512)]
        guard head.starts(with: Array("<?xml".utf8)),
            let close = head.firstIndex(of: UInt8(ascii: ">"))
        else { return nil }
        let declaration = Array(b[start..<close])
        let key = Array("encoding".utf8)
        guard
            let at = (0...max(0, declaration.count - key.count)).first(where: {
                declaration[$0...].starts(with: key)
            }), declaration.count >= key.count
        else { return nil }
        var i = at + key.count
        while i < declaration.count, declaration[i] == 0x20 || declaration[i] == 0x3D || declaration[i] == 0x09 {
            i += 1
        }
        guard i < declaration.count, declaration[i] == 0x22 || declaration[i] == 0x27 else { return nil }
        let quote = declaration[i]
        guard let end = declaration[(i + 1)...].firstIndex(of: quote), end > i + 1 else { return nil }
        return String(decoding: declaration[(i + 1)..<end], as: UTF8.self)
    }

    /// The charset parameter of a Content-Type header value.
    static func charset(ofContentType contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingSpaces.lowercased() == "charset" else { continue }
            let value = pair[1].trimmingSpaces.trimmingCharacters(in: "\"'")
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// Lower-cased name with the aliases that matter folded, following the
    /// WHATWG Encoding Standard where it differs from the IANA registry:
    /// ISO-8859-1 and US-ASCII labels mean windows-1252.
    static func canonicalName(_ label: String) -> String {
        let name = label.trimmingSpaces.lowercased()
        switch name {
        case "utf8", "utf-8", "unicode-1-1-utf-8": return "utf-8"
        case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1", "us-ascii", "ascii", "iso_8859-1", "cp1252",
            "windows-1252", "x-cp1252", "cp819", "ibm819", "iso-ir-100", "ansi_x3.4-1968":
            return "windows-1252"
        case "utf-16", "utf16": return "utf-16"
        default: return name
        }
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        trimmingCharacters(in: " \t\r\n")
    }

    func trimmingCharacters(in set: String) -> String {
        let scalars = Set(set.unicodeScalars)
        var view = Substring(self).unicodeScalars[...]
        while let first = view.first, scalars.contains(first) { view = view.dropFirst() }
        while let last = view.last, scalars.contains(last) { view = view.dropLast() }
        return String(String.UnicodeScalarView(view))
    }
}
