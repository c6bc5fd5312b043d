import FeedEmit

/// The first words of a value, for `planet:excerpt` (Venus's mobile theme
/// shows it instead of the content) and `--summary-only`: at most `length`
/// characters of its text, whitespace collapsed, cut at a word with "…".
/// One pass over the bytes of the start of the value: a long post costs no
/// more than a short one.
public enum Excerpt {
    /// Characters, unless told (Venus's `excerpt.py` width).
    public static let defaultLength = 300

    /// From sanitized markup: tags skipped, the references the sanitizer
    /// writes (`&amp;` `&lt;` `&gt;` `&quot;` `&#39;` `&nbsp;`, numeric) decoded.
    static func of(markup: String, length: Int = defaultLength) -> String {
        excerpt(markup, markup: true, length: length)
    }

    static func of(text: String, length: Int = defaultLength) -> String { excerpt(text, markup: false, length: length) }

    private static func excerpt(_ value: String, markup: Bool, length: Int) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(length + 8)
        var characters = 0
        var lastWordEnd = 0
        var pendingSpace = false
        var inTag = false
        var value = value
        return value.withUTF8 { bytes -> String in
            var index = 0
            func emit(_ byte: UInt8) {
                if pendingSpace && !out.isEmpty {
                    lastWordEnd = out.count
                    out.append(0x20)
                    characters += 1
                }
                pendingSpace = false
                out.append(byte)
                if byte & 0xC0 != 0x80 { characters += 1 }
            }
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if inTag {
                    if byte == UInt8(ascii: ">") { inTag = false }
                    continue
                }
                if markup && byte == UInt8(ascii: "<") {
                    inTag = true
                    if separatesWords(bytes, at: index) { pendingSpace = true }
                    continue
                }
                if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C {
                    pendingSpace = true
                    continue
                }
                if characters >= length {
                    // Cut at the last word that ended, if any.
                    let keep = lastWordEnd > 0 ? lastWordEnd : out.count
                    return String(decoding: out[..<keep], as: UTF8.self) + "…"
                }
                if markup && byte == UInt8(ascii: "&"), let (scalar, width) = reference(bytes, at: index) {
                    index += width
                    if scalar == 0xA0 || scalar == 0x20 {
                        pendingSpace = true
                        continue
                    }
                    for unit in String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8 { emit(unit) }
                    continue
                }
                emit(byte)
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    private static let blocks: Set<String> = [
        "p", "br", "div", "li", "dt", "dd", "tr", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote",
        "pre", "figcaption", "hr", "img", "ul", "ol", "table", "section", "article", "figure", "details", "summary",
    ]

    /// Whether the tag after a `<` (at `start`) breaks a line, so its words stay apart (`<p>a</p><p>b</p>`).
    private static func separatesWords(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        var index = start
        if index < bytes.count, bytes[index] == UInt8(ascii: "/") { index += 1 }
        let nameStart = index
        while index < bytes.count, index - nameStart < 11,
            (bytes[index] | 0x20) >= 0x61 && (bytes[index] | 0x20) <= 0x7A
                || (bytes[index] >= 0x31 && bytes[index] <= 0x36)
        {
            index += 1
        }
        return blocks.contains(String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased())
    }

    /// The reference after an `&` (at `start`): its scalar and the bytes it takes, `;` included.
    private static func reference(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> (UInt32, Int)? {
        var end = start
        while end < bytes.count, end - start < 12, bytes[end] != UInt8(ascii: ";") { end += 1 }
        guard end < bytes.count, bytes[end] == UInt8(ascii: ";") else { return nil }
        let name = String(decoding: bytes[start..<end], as: UTF8.self)
        let width = end - start + 1
        switch name {
        case "amp": return (0x26, width)
        case "lt": return (0x3C, width)
        case "gt": return (0x3E, width)
        case "quot": return (0x22, width)
        case "apos": return (0x27, width)
        case "nbsp": return (0xA0, width)
        default:
            guard name.hasPrefix("#") else { return nil }
            let digits = name.dropFirst()
            let value =
                digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
            return value.map { ($0, width) }
        }
    }
}
