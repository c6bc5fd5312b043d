/// The sanitizer's serializer: bytes appended to one buffer, with the WHATWG
/// HTML fragment serialization rules or as well-formed XML (XHTML).
///
/// HTML: text escapes `&`, `<`, `>` and U+00A0; attribute values escape `&`,
/// `"`, U+00A0, `<` and `>` (the last two as the current HTML standard does,
/// so a value never looks like markup to anything downstream); void elements
/// have no end tag. XHTML: the same escapes except that U+00A0 stays a
/// character and void elements are self-closed (`<br/>`). In both, the
/// characters XML 1.0 does not allow or gumbo would read back as another
/// (C0 controls but tab and LF, DEL, C1 controls, noncharacters) are dropped.
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

    /// Copies runs of ordinary bytes, escaping the rest and dropping the
    /// characters gumbo would not read back as themselves (`unreadable`).
    private mutating func escape(_ value: UnsafeBufferPointer<UInt8>, inAttribute: Bool) {
        var runStart = 0
        var index = 0
        let count = value.count
        while index < count {
            let byte = value[index]
            guard Self.special[Int(byte)] else {
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
            case 0xC2 where index + 1 < count && value[index + 1] == 0xA0 && syntax == .html:
                bytes.append(contentsOf: Self.nbsp)  // U+00A0, HTML only
                consumed = 2
            case 0xC2, 0xEF, 0xF0...0xF4:
                // A sequence of a C1 control or a noncharacter is dropped; any other is copied.
                let width = Self.sequenceWidth(lead: byte)
                if index + width <= count, Self.unreadable(UnsafeBufferPointer(rebasing: value[index..<index + width])) {
                    consumed = width
                } else {
                    bytes.append(byte)
                }
            default:
                break  // a C0 control (but tab and LF) or DEL: dropped
            }
            index += consumed
            runStart = index
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: value[runStart..<count]))
    }

    /// Whether a UTF-8 sequence is a C1 control (U+0080-U+009F) or a
    /// noncharacter (U+FDD0-U+FDEF, U+nFFFE, U+nFFFF): gumbo reads such a
    /// character back as U+FFFD (as it does C0 controls and DEL), so an
    /// output holding one would not be a fixpoint (the fuzzer found `&#1;`,
    /// then a DEL in a base URL); XML does not allow U+FFFE/U+FFFF either.
    static func unreadable(_ sequence: UnsafeBufferPointer<UInt8>) -> Bool {
        var scalar = UInt32(sequence[0]) & (sequence.count == 2 ? 0x1F : sequence.count == 3 ? 0x0F : 0x07)
        for byte in sequence.dropFirst() {
            guard byte & 0xC0 == 0x80 else { return false }
            scalar = scalar << 6 | UInt32(byte & 0x3F)
        }
        return (0x80...0x9F).contains(scalar) || (0xFDD0...0xFDEF).contains(scalar) || scalar & 0xFFFE == 0xFFFE
    }

    /// The length of the UTF-8 sequence a lead byte among those `unreadable` looks at (C2, EF, F0-F4) starts.
    static func sequenceWidth(lead byte: UInt8) -> Int { byte == 0xC2 ? 2 : byte == 0xEF ? 3 : 4 }

    private static let amp = Array("&amp;".utf8)
    private static let lt = Array("&lt;".utf8)
    private static let gt = Array("&gt;".utf8)
    private static let quot = Array("&quot;".utf8)
    private static let nbsp = Array("&nbsp;".utf8)

    private static let markup: [UInt8] = Array("&<>\"".utf8)

    /// The bytes that start something to escape or drop, in both syntaxes:
    /// markup; C0 controls but tab and LF, and DEL, which XML does not allow
    /// or gumbo reads back as another character (U+FFFD; CR as LF); and the
    /// lead bytes of the sequences `unreadable` looks at (and U+00A0).
    private static let special: [Bool] = (0..<256).map { (byte: Int) -> Bool in
        let control = byte < 0x20 && byte != 0x09 && byte != 0x0A || byte == 0x7F
        return markup.contains(UInt8(byte)) || control || byte == 0xC2 || byte == 0xEF || (0xF0...0xF4).contains(byte)
    }
}
