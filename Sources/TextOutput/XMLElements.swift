import FeedModel

/// Writing XML into a `TextBuffer`: every text and attribute value goes
/// through `appendXMLEscaped`, which escapes markup and drops what XML 1.0
/// forbids. Names are literals and attributes are written by a closure,
/// so writing an element allocates nothing.
extension TextBuffer {
    /// `<name attr="value">text</name>` on its own line; nothing when `text` is nil.
    public mutating func element(
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
    public mutating func markupElement(
        _ name: StaticString, _ html: String, indent: Int, attributes: (inout TextBuffer) -> Void = { _ in }
    ) {
        startTag(name, indent: indent)
        attributes(&self)
        append(byte: UInt8(ascii: ">"))
        appendCDATA(html)
        endTag(name)
    }

    /// `<name>date</name>` on its own line; nothing when `date` is nil.
    public mutating func element(_ name: StaticString, _ date: Timestamp?, _ style: Timestamp.Style, indent: Int) {
        guard let date else { return }
        startTag(name, indent: indent)
        append(byte: UInt8(ascii: ">"))
        append(date, style)
        endTag(name)
    }

    /// `<name attr="value"/>` on its own line.
    public mutating func emptyElement(_ name: StaticString, indent: Int, attributes: (inout TextBuffer) -> Void) {
        startTag(name, indent: indent)
        attributes(&self)
        append("/>\n")
    }

    /// ` name="value"`; nothing when `value` is nil.
    public mutating func attribute(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        append(byte: UInt8(ascii: " "))
        append(name)
        append("=\"")
        appendXMLEscaped(value, attribute: true)
        append(byte: UInt8(ascii: "\""))
    }

    /// `<name`, indented.
    public mutating func startTag(_ name: StaticString, indent: Int) {
        append(spaces: indent)
        append(byte: UInt8(ascii: "<"))
        append(name)
    }

    /// `</name>` and the end of the line.
    public mutating func endTag(_ name: StaticString) {
        append("</")
        append(name)
        append(">\n")
    }
}
