/// `style` attributes: feedparser's approach, a small allowlist of CSS
/// properties, rather than dropping the attribute (chosen because feed
/// content uses colour, alignment and spacing that carry meaning, and the
/// conformance checks encode it).
///
/// A declaration is kept when its property is allowed and its value is made
/// only of words, numbers, `#hex` colours, quoted font names and `rgb()`-like
/// colour functions of numbers. Anything that could fetch, run or escape is
/// refused: the whole attribute goes when it holds a backslash (escapes), a
/// comment (`/*`), `@`, `<`, `&`, braces or a NUL; a declaration goes when its value
/// holds `url(`, `expression(`, `image-set(`, `var(` or any function but the
/// colour ones (only `rgb`, `rgba`, `hsl`, `hsla` may open a parenthesis).
enum StylePolicy {
    static let properties: Set<String> = [
        "azimuth", "background-color", "border-bottom-color", "border-collapse", "border-color",
        "border-left-color", "border-right-color", "border-top-color", "clear", "color", "cursor", "direction",
        "display", "elevation", "float", "font", "font-family", "font-size", "font-style", "font-variant",
        "font-weight", "height", "letter-spacing", "line-height", "overflow", "pause", "pause-after",
        "pause-before", "pitch", "pitch-range", "richness", "speak", "speak-header", "speak-numeral",
        "speak-punctuation", "speech-rate", "stress", "text-align", "text-decoration", "text-indent",
        "unicode-bidi", "vertical-align", "voice-family", "volume", "white-space", "width",
    ]

    /// Shorthand families kept when every word of the value is a keyword or a length/colour.
    static let families: Set<String> = ["background", "border", "margin", "padding"]

    static let keywords: Set<String> = [
        "aqua", "auto", "black", "block", "blue", "bold", "both", "bottom", "brown", "center", "collapse",
        "dashed", "dotted", "fuchsia", "gray", "green", "!important", "italic", "left", "lime", "maroon", "medium",
        "none", "navy", "normal", "nowrap", "olive", "pointer", "purple", "red", "right", "solid", "silver", "teal",
        "top", "transparent", "underline", "white", "yellow",
    ]

    static let units: [String] = ["cm", "em", "ex", "in", "mm", "pc", "pt", "px", "%"]

    /// The declarations to keep, `prop: value;` joined by spaces; nil when none is left.
    static func check(_ value: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        for byte in value {
            switch byte {
            case 0x00, UInt8(ascii: "\\"), UInt8(ascii: "@"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"),
                UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "`"):
                return nil
            default: continue
            }
        }
        // A comment anywhere (`/*`) refuses the whole attribute; another `/`
        // (in `url(/x)`, `12px/1.5`) only fails its declaration's value check.
        for index in value.indices.dropLast() where value[index] == UInt8(ascii: "/") {
            if value[index + 1] == UInt8(ascii: "*") { return nil }
        }
        let text = String(decoding: value, as: UTF8.self)
        var kept: [String] = []
        for declaration in text.split(separator: ";") {
            guard let colon = declaration.firstIndex(of: ":") else { continue }
            let property = declaration[..<colon].trimmingASCIISpaces.lowercased()
            let body = declaration[declaration.index(after: colon)...].trimmingASCIISpaces
            guard !property.isEmpty, !body.isEmpty,
                property.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D }),
                isSafeValue(body)
            else { continue }
            if properties.contains(property) {
                kept.append("\(property): \(body);")
            } else if let family = property.split(separator: "-").first, families.contains(String(family)),
                body.split(separator: " ").allSatisfy(isKeywordOrMeasure)
            {
                kept.append("\(property): \(body);")
            }
        }
        return kept.isEmpty ? nil : Array(kept.joined(separator: " ").utf8)
    }

    /// Words, numbers, `#hex`, `!important`, commas, quoted names of letters,
    /// digits, spaces and hyphens, and colour functions of numbers.
    static func isSafeValue(_ value: Substring) -> Bool {
        let bytes = Array(value.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: " "), UInt8(ascii: "#"), UInt8(ascii: "%"),
                UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: "!"), UInt8(ascii: "-"), UInt8(ascii: "_"),
                0x09, 0x0A:
                index += 1
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                guard let close = bytes[(index + 1)...].firstIndex(of: byte),
                    bytes[(index + 1)..<close].allSatisfy({ isNameByte($0) || $0 == 0x20 })
                else { return false }
                index = close + 1
            case UInt8(ascii: "("):
                let name = String(decoding: bytes[..<index].reversed().prefix(while: isNameByte).reversed(), as: UTF8.self)
                guard ["rgb", "rgba", "hsl", "hsla"].contains(name.lowercased()),
                    let close = bytes[(index + 1)...].firstIndex(of: UInt8(ascii: ")")),
                    bytes[(index + 1)..<close].allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ", .%".utf8.contains($0) })
                else { return false }
                index = close + 1
            default:
                return false
            }
        }
        return true
    }

    static func isKeywordOrMeasure(_ word: Substring) -> Bool {
        if keywords.contains(word.lowercased()) { return true }
        if word.hasPrefix("#") { return word.count > 1 && word.dropFirst().allSatisfy(\.isHexDigit) }
        if word.lowercased().hasPrefix("rgb(") { return true }  // isSafeValue checked its inside
        var number = word[...]
        if let unit = units.first(where: { word.lowercased().hasSuffix($0) }) { number = word.dropLast(unit.count) }
        return !number.isEmpty && number.count <= 8 && number.filter({ $0 == "." }).count <= 1
            && number.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        URLPolicy.isLetter(byte) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x5F
    }
}

extension Substring {
    fileprivate var trimmingASCIISpaces: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0C}" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
