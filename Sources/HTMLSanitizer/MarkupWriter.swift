/// The sanitizer's serializer: bytes appended to one buffer, with the WHATWG
/// HTML fragment serialization rules or as well-formed XML (XHTML).
///
/// HTML: text escapes `&`, `<`, `>` and U+00A0; attribute values escape `&`,
/// `"`, U+00A0, `<` and `>` (the last two as the current HTML standard does,
/// so a value never looks like markup to anything downstream); void elements
/// have no end tag. XHTML: the same escapes except that U+00A0 stays a
/// character and void elements are self-closed (`<br/>`). In both, characters
/// XML 1.0 does not allow (C0 controls but tab and LF, U+FFFE, U+FFFF) are
/// dropped.
struct MarkupWriter {
    enum Syntax { case html, xhtml }

    let syntax: Syntax
    private(set) var bytes: [UInt8] = []
    /// Set right after a `pre` start tag: a text written before anything else
    /// that starts with LF gets one more, as the serialization algorithm does,
    /// because the parser drops the first LF after `<pre>`.
    private var atPreStart = false

    init(syntax: Syntax, capacity: Int) {
        self.syntax = syntax
        bytes.reserveCapacity(capacity + capacity / 8 + 64)
    }

    mutating func startTag(_ name: [UInt8]) {
        atPreStart = false
        bytes.append(UInt8(ascii: "<"))
        bytes.append(contentsOf: name)
    }

    mutating func attribute(_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) {
        bytes.append(0x20)
        bytes.append(contentsOf: name)
        bytes.append(contentsOf: [UInt8(ascii: "="), UInt8(ascii: "\"")])
        escape(value, inAttribute: true)
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func attribute(_ name: StaticString, _ value: [UInt8]) {
        name.withUTF8Buffer { name in
            value.withUnsafeBufferPointer { value in attribute(name, value) }
        }
    }

    /// Ends a start tag; `void` elements are self-closed in XHTML.
    mutating func endStartTag(void: Bool, pre: Bool) {
        if void && syntax == .xhtml { bytes.append(UInt8(ascii: "/")) }
        bytes.append(UInt8(ascii: ">"))
        atPreStart = pre
    }

    mutating func endTag(_ name: [UInt8]) {
        atPreStart = false
        bytes.append(contentsOf: [UInt8(ascii: "<"), UInt8(ascii: "/")])
        bytes.append(contentsOf: name)
        bytes.append(UInt8(ascii: ">"))
    }

    mutating func text(_ value: UnsafeBufferPointer<UInt8>) {
        guard !value.isEmpty else { return }
        if atPreStart, value[0] == 0x0A { bytes.append(0x0A) }
        atPreStart = false
        escape(value, inAttribute: false)
    }

    /// Copies runs of ordinary bytes, escaping the rest.
    private mutating func escape(_ value: UnsafeBufferPointer<UInt8>, inAttribute: Bool) {
        let special = syntax == .html ? Self.htmlSpecial : Self.xmlSpecial
        var runStart = 0
        var index = 0
        let count = value.count
        while index < count {
            let byte = value[index]
            guard special[Int(byte)] else {
                index += 1
                continue
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: value[runStart..<index]))
            var consumed = 1
            switch byte {
            case UInt8(ascii: "&"): bytes.append(contentsOf: Self.amp)
            case UInt8(ascii: "<"): bytes.append(contentsOf: Self.lt)
            case UInt8(ascii: ">"): bytes.append(contentsOf: Self.gt)
            case UInt8(ascii: "\""):
                if inAttribute { bytes.append(contentsOf: Self.quot) } else { bytes.append(byte) }
            case 0xC2:
                // U+00A0 is C2 A0 (HTML only); any other C2 sequence is copied.
                if index + 1 < count, value[index + 1] == 0xA0 {
                    bytes.append(contentsOf: Self.nbsp)
                    consumed = 2
                } else {
                    bytes.append(byte)
                }
            case 0xEF:
                // U+FFFE and U+FFFF (EF BF BE/BF) are not XML characters.
                if index + 2 < count, value[index + 1] == 0xBF, value[index + 2] >= 0xBE {
                    consumed = 3
                } else {
                    bytes.append(byte)
                }
            default:
                break  // a C0 control XML does not allow: dropped
            }
            index += consumed
            runStart = index
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: value[runStart..<count]))
    }

    private static let amp = Array("&amp;".utf8)
    private static let lt = Array("&lt;".utf8)
    private static let gt = Array("&gt;".utf8)
    private static let quot = Array("&quot;".utf8)
    private static let nbsp = Array("&nbsp;".utf8)

    private static let markup: [UInt8] = Array("&<>\"".utf8)

    /// The C0 controls (but tab and LF) and U+FFFE/U+FFFF go in both
    /// syntaxes: XML does not allow them, and in HTML gumbo reads a raw one
    /// back as another character (U+FFFD; CR as LF), so an output holding one
    /// (from `&#1;`, the fuzzer's find) would not be a fixpoint.
    private static func mayBeDropped(_ byte: Int) -> Bool { byte < 0x20 && byte != 0x09 && byte != 0x0A || byte == 0xEF }

    private static let htmlSpecial: [Bool] = (0..<256).map { (byte: Int) -> Bool in
        markup.contains(UInt8(byte)) || byte == 0xC2 || mayBeDropped(byte)
    }

    private static let xmlSpecial: [Bool] = (0..<256).map { (byte: Int) -> Bool in
        markup.contains(UInt8(byte)) || mayBeDropped(byte)
    }
}
