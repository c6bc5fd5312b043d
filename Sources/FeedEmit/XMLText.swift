import FeedModel
import TextOutput

/// Writing XML into a `TextBuffer`: every text and attribute value goes
/// through `appendXMLEscaped`, which escapes markup and drops what XML 1.0
/// forbids. Names are literals and attributes are written by a closure,
/// so writing an element allocates nothing.
extension TextBuffer {
    /// `<name attr="value">text</name>` on its own line; nothing when `text` is nil.
    mutating func element(
        _ name: StaticString, _ text: String?, indent: Int, attributes: (inout TextBuffer) -> Void = { _ in }
    ) {
        guard let text else { return }
        startTag(name, indent: indent)
        attributes(&self)
        append(byte: UInt8(ascii: ">"))
        appendXMLEscaped(text)
        endTag(name)
    }

    /// `<name attr="value"><![CDATA[html]]></name>` on its own line: a
    /// markup value, written as it is (see `appendCDATA`).
    mutating func markupElement(
        _ name: StaticString, _ html: String, indent: Int, attributes: (inout TextBuffer) -> Void = { _ in }
    ) {
        startTag(name, indent: indent)
        attributes(&self)
        append(byte: UInt8(ascii: ">"))
        appendCDATA(html)
        endTag(name)
    }

    /// `<name>date</name>` on its own line; nothing when `date` is nil.
    mutating func element(_ name: StaticString, _ date: Timestamp?, _ style: Timestamp.Style, indent: Int) {
        guard let date else { return }
        startTag(name, indent: indent)
        append(byte: UInt8(ascii: ">"))
        append(date, style)
        endTag(name)
    }

    /// `<name attr="value"/>` on its own line.
    mutating func emptyElement(_ name: StaticString, indent: Int, attributes: (inout TextBuffer) -> Void) {
        startTag(name, indent: indent)
        attributes(&self)
        append("/>\n")
    }

    /// ` name="value"`; nothing when `value` is nil.
    mutating func attribute(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        append(byte: UInt8(ascii: " "))
        append(name)
        append("=\"")
        appendXMLEscaped(value, attribute: true)
        append(byte: UInt8(ascii: "\""))
    }

    /// `<name`, indented.
    mutating func startTag(_ name: StaticString, indent: Int) {
        append(spaces: indent)
        append(byte: UInt8(ascii: "<"))
        append(name)
    }

    /// `</name>` and the end of the line.
    mutating func endTag(_ name: StaticString) {
        append("</")
        append(name)
        append(">\n")
    }
}

enum XMLText {
    /// Escaped text as a String (for HTML built from plain text).
    static func escape(_ text: String) -> String {
        var buffer = TextBuffer(capacity: text.utf8.count + 16)
        buffer.appendXMLEscaped(text)
        return buffer.text
    }
}

/// HTML reduced to plain text (for RSS titles, which are plain text):
/// tags removed, the common character references decoded.
public enum PlainText {
    public static func from(html: String) -> String {
        var out = ""
        var inTag = false
        for character in html {
            if character == "<" {
                inTag = true
            } else if character == ">" && inTag {
                inTag = false
            } else if !inTag {
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
