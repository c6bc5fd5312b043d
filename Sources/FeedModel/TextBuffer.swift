/// UTF-8 output built byte by byte: the writers' (and the JSON writer's)
/// buffer. Escaping works on the bytes, copying unescaped runs whole.
public struct TextBuffer {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 4096) { bytes.reserveCapacity(capacity) }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    public mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    public mutating func append(byte: UInt8) { bytes.append(byte) }

    /// What the word-at-a-time scan stops at, besides control bytes.
    private enum Specials { case xml, xmlAttribute, json }

    /// The first index at or after `start` whose 8-byte word may hold a byte
    /// that needs escaping: a control byte, or one the format escapes.
    /// Plain text is skipped a word at a time.
    @inline(__always)
    private static func skipPlain(_ source: UnsafeBufferPointer<UInt8>, from start: Int, _ specials: Specials) -> Int {
        guard let base = source.baseAddress else { return start }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func has(_ word: UInt64, _ pattern: UInt64) -> UInt64 {
            let x = word ^ pattern
            return (x &- ones) & ~x & highs
        }
        var i = start
        while i + 8 <= source.count {
            let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            var flagged = (word &- 0x2020_2020_2020_2020) & ~word & highs | has(word, 0xEFEF_EFEF_EFEF_EFEF)
            switch specials {
            case .xml:
                flagged |= has(word, 0x2626_2626_2626_2626) | has(word, 0x3C3C_3C3C_3C3C_3C3C) | has(word, 0x3E3E_3E3E_3E3E_3E3E)
            case .xmlAttribute:
                flagged |= has(word, 0x2626_2626_2626_2626) | has(word, 0x3C3C_3C3C_3C3C_3C3C) | has(word, 0x3E3E_3E3E_3E3E_3E3E)
                    | has(word, 0x2222_2222_2222_2222)
            case .json:
                flagged |= has(word, 0x2222_2222_2222_2222) | has(word, 0x5C5C_5C5C_5C5C_5C5C) | has(word, 0xE2E2_E2E2_E2E2_E2E2)
            }
            if flagged != 0 { return i + flagged.trailingZeroBitCount / 8 }
            i += 8
        }
        return i
    }

    /// XML character data (or an attribute value, quotes escaped too), with
    /// the characters XML 1.0 forbids dropped: C0 controls but tab, newline
    /// and carriage return, and U+FFFE/U+FFFF.
    public mutating func appendXMLEscaped(_ text: String, attribute: Bool = false) {
        var text = text
        text.withUTF8 { source in
            var runStart = 0
            var i = 0
            func flush(_ end: Int) {
                if end > runStart { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[runStart..<end])) }
            }
            let specials: Specials = attribute ? .xmlAttribute : .xml
            while i < source.count {
                i = Self.skipPlain(source, from: i, specials)
                guard i < source.count else { break }
                let b = source[i]
                var replacement: StaticString? = nil
                var skip = 1
                switch b {
                case UInt8(ascii: "&"): replacement = "&amp;"
                case UInt8(ascii: "<"): replacement = "&lt;"
                case UInt8(ascii: ">"): replacement = "&gt;"
                case UInt8(ascii: "\"") where attribute: replacement = "&quot;"
                case 0x0A where attribute: replacement = "&#10;"
                case 0x09 where attribute: replacement = "&#9;"
                case 0x0D: replacement = "&#13;"
                case 0x09, 0x0A: break
                case 0..<0x20: replacement = ""
                case 0xEF where i + 2 < source.count && source[i + 1] == 0xBF && (source[i + 2] == 0xBE || source[i + 2] == 0xBF):
                    replacement = ""
                    skip = 3
                default: break
                }
                if let replacement {
                    flush(i)
                    bytes.append(contentsOf: UnsafeBufferPointer(start: replacement.utf8Start, count: replacement.utf8CodeUnitCount))
                    i += skip
                    runStart = i
                } else {
                    i += 1
                }
            }
            flush(source.count)
        }
    }

    /// A JSON string literal, quotes included. Control characters and
    /// U+FFFE/U+FFFF are dropped; U+2028/U+2029 escaped for JavaScript.
    public mutating func appendJSONString(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { source in
            var runStart = 0
            var i = 0
            func flush(_ end: Int) {
                if end > runStart { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[runStart..<end])) }
            }
            while i < source.count {
                i = Self.skipPlain(source, from: i, .json)
                guard i < source.count else { break }
                let b = source[i]
                var replacement: StaticString? = nil
                var skip = 1
                switch b {
                case UInt8(ascii: "\""): replacement = "\\\""
                case UInt8(ascii: "\\"): replacement = "\\\\"
                case 0x0A: replacement = "\\n"
                case 0x0D: replacement = "\\r"
                case 0x09: replacement = "\\t"
                case 0..<0x20: replacement = ""
                case 0xE2 where i + 2 < source.count && source[i + 1] == 0x80 && (source[i + 2] == 0xA8 || source[i + 2] == 0xA9):
                    replacement = source[i + 2] == 0xA8 ? "\\u2028" : "\\u2029"
                    skip = 3
                case 0xEF where i + 2 < source.count && source[i + 1] == 0xBF && (source[i + 2] == 0xBE || source[i + 2] == 0xBF):
                    replacement = ""
                    skip = 3
                default: break
                }
                if let replacement {
                    flush(i)
                    bytes.append(contentsOf: UnsafeBufferPointer(start: replacement.utf8Start, count: replacement.utf8CodeUnitCount))
                    i += skip
                    runStart = i
                } else {
                    i += 1
                }
            }
            flush(source.count)
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
