import Basics
/// Deciding which character encoding a document's bytes are in.
///
/// The order is RFC 7303, section 3 (with XML 1.0, appendix F, for what the
/// bytes themselves say):
/// 1. a byte order mark;
/// 2. for an XML media type (`application/xml`, `text/xml`, any `…/…+xml`),
///    the `charset` parameter of the HTTP Content-Type;
/// 3. the byte pattern of the first four bytes: UTF-32 and UTF-16 without a
///    mark, or EBCDIC (whose declaration is then read in EBCDIC);
/// 4. the `encoding` of the XML declaration;
/// 5. for any other media type (`text/html`, `text/plain`,
///    `application/octet-stream`…), the HTTP `charset`: there the
///    declaration wins;
/// 6. UTF-8 (the reader retries invalid bytes as windows-1252, see `XMLInput`).
///
/// `text/xml` without a charset is read like `application/xml` (RFC 7303
/// retired RFC 3023's US-ASCII default): the declaration decides.
/// A label that names a 16- or 32-bit encoding is ignored when the bytes are
/// plainly ASCII-compatible (`<?xml` as single bytes): the label is wrong.
enum CharacterEncoding {
    /// One possible reading: the encoding's name, where it came from, and how
    /// many leading bytes are a byte order mark.
    struct Decision: Equatable {
        enum Source: String {
            case byteOrderMark = "byte order mark", http = "HTTP charset", bytePattern = "byte pattern"
            case declaration = "XML declaration", assumed
        }
        var name: String
        var source: Source
        var bomLength: Int = 0
    }

    /// The readings to try, most authoritative first; the caller takes the
    /// first it can decode. The last one is always UTF-8.
    static func candidates(_ bytes: UnsafeBufferPointer<UInt8>, contentType: String?) -> [Decision] {
        if let bom = byteOrderMark(bytes) { return [bom] }
        let media = contentType.map(MediaType.init(parsing:))
        let pattern = bytePattern(bytes)
        if case .wide(let name) = pattern {
            // The width and byte order are certain; a label can only repeat them.
            return [Decision(name: name, source: .bytePattern)]
        }
        var result: [Decision] = []
        func add(_ label: String?, _ source: Decision.Source, canonical: Bool = false) {
            guard let label else { return }
            let name = canonical ? label : canonicalName(label)
            guard !name.isEmpty, !isWide(name), !result.contains(where: { $0.name == name }) else { return }
            result.append(Decision(name: name, source: source))
        }
        if let media, media.isXML { add(media.charset, .http) }
        if pattern == .ebcdic {
            add(ebcdicDeclaredEncoding(bytes), .declaration)
            add("cp037", .bytePattern)
        }
        add(declaredEncoding(bytes), .declaration)
        if let media, !media.isXML { add(media.charset, .http) }
        add("utf-8", .assumed, canonical: true)
        return result
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

    enum BytePattern: Equatable {
        /// UTF-32 or UTF-16 without a mark: `<` (or `<?`) spelled in 4 or 2 bytes.
        case wide(String)
        /// `<?xm` in EBCDIC.
        case ebcdic
        /// Anything else: ASCII-compatible, or unknown.
        case other
    }

    /// XML 1.0, appendix F.1, without a byte order mark.
    static func bytePattern(_ b: UnsafeBufferPointer<UInt8>) -> BytePattern {
        guard b.count >= 4 else { return .other }
        switch (b[0], b[1], b[2], b[3]) {
        case (0x00, 0x00, 0x00, 0x3C): return .wide("utf-32be")
        case (0x3C, 0x00, 0x00, 0x00): return .wide("utf-32le")
        case (0x00, 0x3C, 0x00, _) where b[3] != 0: return .wide("utf-16be")
        case (0x3C, 0x00, _, 0x00) where b[2] != 0: return .wide("utf-16le")
        case (0x4C, 0x6F, 0xA7, 0x94): return .ebcdic
        default: return .other
        }
    }

    /// Whether an encoding uses 16- or 32-bit code units (so it cannot
    /// describe a document whose `<?xml` is ASCII).
    static func isWide(_ name: String) -> Bool {
        name.hasPrefix("utf-16") || name.hasPrefix("utf-32") || name.hasPrefix("ucs-") || name.hasPrefix("utf16")
            || name.hasPrefix("utf32") || name.hasPrefix("ucs2") || name.hasPrefix("ucs4")
            || name.hasPrefix("iso-10646-ucs")
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
        guard declaration.count >= key.count,
            let at = (0...(declaration.count - key.count)).first(where: { declaration[$0...].starts(with: key) })
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

    /// The declaration of an EBCDIC document, read through code page 037
    /// (its letters, digits and the declaration's punctuation are the same
    /// in every EBCDIC code page).
    static func ebcdicDeclaredEncoding(_ b: UnsafeBufferPointer<UInt8>) -> String? {
        guard let transcoder = Transcoder(from: "CP037") else { return nil }
        let head = transcoder.convert(UnsafeBufferPointer(rebasing: b[..<min(b.count, 256)]))
        return head.withUnsafeBufferPointer { declaredEncoding($0) }
    }

    /// Lower-cased name with the aliases that matter folded, following the
    /// WHATWG Encoding Standard where it differs from the IANA registry:
    /// ISO-8859-1 and US-ASCII labels mean windows-1252.
    static func canonicalName(_ label: String) -> String {
        // The common labels, as written, need no trimming or folding.
        switch label {
        case "utf-8", "UTF-8": return "utf-8"
        case "ISO-8859-1", "iso-8859-1", "windows-1252": return "windows-1252"
        default: break
        }
        let name = label.trimmingWhitespace.trimming("\"'").lowercased()
        switch name {
        case "utf8", "utf-8", "unicode-1-1-utf-8", "x-unicode20utf8", "cp65001": return "utf-8"
        case "iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "latin-1", "l1", "us-ascii", "ascii", "cp1252",
            "windows-1252", "x-cp1252", "cp819", "ibm819", "iso-ir-100", "ansi_x3.4-1968", "iso_8859-1:1987",
            "csisolatin1", "iso88591":
            return "windows-1252"
        case "utf-16", "utf16", "unicode", "ucs-2", "csunicode", "iso-10646-ucs-2": return "utf-16"
        default: return name
        }
    }

    /// Other spellings of a label for iconv to try when it does not know the
    /// label itself (Python's and the web's names for the same code pages).
    static func iconvSpellings(of name: String) -> [String] {
        var spellings = [name]
        let hyphenated = name.replacingAll("_", with: "-")
        if hyphenated != name { spellings.append(hyphenated) }
        let aliases: [String: String] = [
            "cp-is": "cp861", "ibm039": "ibm037", "macroman": "macintosh", "mac-roman": "macintosh",
            "x-mac-roman": "macintosh", "maccentraleurope": "mac-centraleurope", "x-mac-ce": "mac-centraleurope",
            "mac-latin2": "mac-centraleurope", "maclatin2": "mac-centraleurope", "maciceland": "mac-is",
            "mac-iceland": "mac-is",
            "x-mac-cyrillic": "mac-cyrillic", "ks-c-5601-1987": "cp949", "ks-c-5601-1989": "cp949",
            "windows-949": "cp949", "x-sjis": "cp932", "ms-kanji": "cp932", "x-euc-jp": "euc-jp",
            "x-gbk": "gbk", "gb2312": "gbk", "csgb2312": "gbk", "chinese": "gbk", "big5": "big5-hkscs",
            "iso-8859-8-i": "iso-8859-8", "csiso88598i": "iso-8859-8", "x-mac-ukrainian": "macukrainian",
        ]
        if let alias = aliases[hyphenated] { spellings.append(alias) }
        // IANA's `csIBM861` is `IBM861`, `cp-861` is `cp861`.
        if hyphenated.hasPrefix("csibm") { spellings.append("ibm" + hyphenated.dropFirst(5)) }
        if hyphenated.hasPrefix("cp-") { spellings.append("cp" + hyphenated.dropFirst(3)) }
        return spellings
    }
}

/// A Content-Type value: its media type and `charset` parameter.
struct MediaType {
    var type: String
    var charset: String?

    init(parsing value: String) {
        let parts = value.split(separator: ";", omittingEmptySubsequences: false)
        type = parts.first.map { $0.trimmingWhitespace.lowercased() } ?? ""
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingWhitespace.lowercased() == "charset" else { continue }
            let value = pair[1].trimmingWhitespace.trimming("\"'")
            charset = value.isEmpty ? nil : value
        }
    }

    /// RFC 7303: `application/xml`, `text/xml`, the external parsed entity
    /// and DTD types, and every type with the `+xml` suffix.
    var isXML: Bool {
        switch type {
        case "application/xml", "text/xml", "application/xml-external-parsed-entity",
            "text/xml-external-parsed-entity", "application/xml-dtd":
            return true
        default:
            return type.hasSuffix("+xml")
        }
    }
}

extension StringProtocol {
    func replacingAll(_ target: Character, with replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
