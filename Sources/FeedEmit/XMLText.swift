/// Text made safe for XML 1.0 output: characters XML forbids are dropped,
/// markup characters escaped.
enum XMLText {
    static func escape(_ text: String, attribute: Bool = false) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where attribute: out += "&quot;"
            case "\n" where attribute: out += "&#10;"
            case "\t" where attribute: out += "&#9;"
            case "\r": out += "&#13;"
            default:
                if isAllowed(scalar.value) { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }

    /// The `Char` production of XML 1.0.
    static func isAllowed(_ v: UInt32) -> Bool {
        v == 0x9 || v == 0xA || v == 0xD || (0x20...0xD7FF).contains(v) || (0xE000...0xFFFD).contains(v)
            || (0x10000...0x10FFFF).contains(v)
    }

    /// `<name attr="value">text</name>`, nothing when `text` is nil.
    static func element(_ name: String, _ text: String?, attributes: [(String, String?)] = [], indent: String) -> String {
        guard let text else { return "" }
        return "\(indent)<\(name)\(attributeList(attributes))>\(escape(text))</\(name)>\n"
    }

    static func attributeList(_ attributes: [(String, String?)]) -> String {
        attributes.compactMap { name, value in value.map { " \(name)=\"\(escape($0, attribute: true))\"" } }.joined()
    }
}

/// HTML reduced to plain text (for RSS titles, which are plain text):
/// tags removed, the common character references decoded.
enum PlainText {
    static func from(html: String) -> String {
        var out = ""
        var inTag = false
        for character in html {
            if character == "<" { inTag = true } else if character == ">" && inTag { inTag = false } else if !inTag {
                out.append(character)
            }
        }
        return decodeReferences(out)
    }

    static func decodeReferences(_ text: String) -> String {
        guard text.contains("&") else { return text }
        let named: [Substring: String] = [
            "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}", "hellip": "…",
            "mdash": "—", "ndash": "–", "rsquo": "’", "lsquo": "‘", "rdquo": "”", "ldquo": "“", "copy": "©",
        ]
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            if let semicolon = after.prefix(12).firstIndex(of: ";") {
                let name = after[..<semicolon]
                var replacement: String? = named[name]
                if name.hasPrefix("#x") || name.hasPrefix("#X"), let v = UInt32(name.dropFirst(2), radix: 16) {
                    replacement = Unicode.Scalar(v).map { String($0) }
                } else if name.hasPrefix("#"), let v = UInt32(name.dropFirst()) {
                    replacement = Unicode.Scalar(v).map { String($0) }
                }
                if let replacement {
                    out += replacement
                    rest = after[after.index(after: semicolon)...]
                    continue
                }
            }
            out += "&"
            rest = after
        }
        return out + rest
    }
}
