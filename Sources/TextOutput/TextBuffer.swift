import FeedModel

/// UTF-8 output built byte by byte: the writers' (and the JSON writer's)
/// buffer. Escaping works on the bytes, copying unescaped runs whole.
///
/// A buffer made with a drain streams: once it holds `threshold` bytes,
/// `drainIfFull()` hands them on (to a file, say) and starts again, so a
/// document of any size needs only that much memory.
///
/// Noncopyable: a buffer has one owner, so an append never has to ask
/// whether its memory is shared (the writers append millions of times).
public struct TextBuffer: ~Copyable {
    // Internal for the inlinable appends below: the writers call them for
    // every tag of every entry.
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    @usableFromInline var count = 0
    private let threshold: Int
    private let drain: ((UnsafeBufferPointer<UInt8>) -> Void)?
    /// Why the text is not the whole document (nil: nothing said so): a writer that cannot
    /// make all of it says so here, and whoever keeps the text keeps none of it
    /// (`AtomicFile.finish` leaves the file as it was).
    public private(set) var failure: String?

    public init(capacity: Int = 4096) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
        threshold = .max
        drain = nil
    }

    /// A streaming buffer: `drain` receives the text in pieces of about
    /// `threshold` bytes, in order; `flush()` hands on the rest.
    public init(drainingAt threshold: Int, into drain: @escaping (UnsafeBufferPointer<UInt8>) -> Void) {
        capacity = max(threshold + threshold / 4, 64)
        base = .allocate(capacity: capacity)
        self.threshold = threshold
        self.drain = drain
    }

    deinit { base.deallocate() }

    /// The text so far, as bytes (a copy).
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// The bytes written so far, without copying them.
    public func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    /// Hands the text so far to the drain once there is enough of it. The
    /// writers call this between entries.
    @inline(__always)
    public mutating func drainIfFull() {
        if count >= threshold { flush() }
    }

    /// Says that the text is not the whole document, and why (the first reason stays).
    public mutating func fail(_ reason: String) {
        if failure == nil { failure = reason }
    }

    /// Hands all the text so far to the drain (nothing without one).
    public mutating func flush() {
        guard let drain, count > 0 else { return }
        drain(UnsafeBufferPointer(start: base, count: count))
        count = 0
    }

    public var text: String {
        String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
    }

    /// Room for `extra` more bytes.
    @inlinable @inline(__always)
    mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(extra) }
    }

    @usableFromInline mutating func grow(_ extra: Int) {
        capacity = max(count + extra, capacity * 2)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        grown.update(from: base, count: count)
        base.deallocate()
        base = grown
    }

    @inlinable @inline(__always)
    public mutating func append(_ start: UnsafePointer<UInt8>, count extra: Int) {
        reserve(extra)
        (base + count).update(from: start, count: extra)
        count += extra
    }

    @inlinable
    public mutating func append(contentsOf text: String) {
        var text = text
        text.withUTF8 { if let base = $0.baseAddress { append(base, count: $0.count) } }
    }

    public mutating func append(bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { if let start = $0.baseAddress { append(start, count: $0.count) } }
    }

    @inlinable
    public mutating func append(_ text: StaticString) {
        append(text.utf8Start, count: text.utf8CodeUnitCount)
    }

    /// `count` spaces (an indent).
    public mutating func append(spaces count: Int) {
        reserve(count)
        (base + self.count).update(repeating: UInt8(ascii: " "), count: count)
        self.count += count
    }

    /// A date in `style`, written straight into the buffer.
    public mutating func append(_ date: Timestamp, _ style: Timestamp.Style) {
        reserve(style.length)
        count += date.write(
            style, into: UnsafeMutableBufferPointer(start: base + count, count: style.length))
    }

    @inlinable
    public mutating func append(byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    /// What the word-at-a-time scan stops at, besides control bytes.
    private enum Specials { case xml, xmlAttribute, cdata, json }

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
                flagged |=
                    has(word, 0x2626_2626_2626_2626) | has(word, 0x3C3C_3C3C_3C3C_3C3C)
                    | has(word, 0x3E3E_3E3E_3E3E_3E3E)
            case .xmlAttribute:
                flagged |=
                    has(word, 0x2626_2626_2626_2626) | has(word, 0x3C3C_3C3C_3C3C_3C3C)
                    | has(word, 0x3E3E_3E3E_3E3E_3E3E)
                    | has(word, 0x2222_2222_2222_2222)
            case .cdata:
                flagged |= has(word, 0x5D5D_5D5D_5D5D_5D5D)
            case .json:
                flagged |=
                    has(word, 0x2222_2222_2222_2222) | has(word, 0x5C5C_5C5C_5C5C_5C5C)
                    | has(word, 0xE2E2_E2E2_E2E2_E2E2)
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
        appendEscaped(text, scanning: attribute ? .xmlAttribute : .xml) { source, i in
            switch source[i] {
            case UInt8(ascii: "&"): ("&amp;", 1)
            case UInt8(ascii: "<"): ("&lt;", 1)
            case UInt8(ascii: ">"): ("&gt;", 1)
            case UInt8(ascii: "\"") where attribute: ("&quot;", 1)
            case 0x0A where attribute: ("&#10;", 1)
            case 0x09 where attribute: ("&#9;", 1)
            case 0x0D: ("&#13;", 1)
            case 0x09, 0x0A: nil
            case 0..<0x20: ("", 1)
            case 0xEF where Self.isNoncharacter(source, at: i): ("", 3)
            default: nil
            }
        }
    }

    /// Character data as a CDATA section, for markup (HTML) values: it
    /// goes out as it is, with no per-character escaping and no growth.
    /// `]]>` and carriage returns (which a reader would turn into line
    /// feeds) close the section and go out escaped between two sections;
    /// what XML 1.0 forbids is dropped, as in `appendXMLEscaped`.
    public mutating func appendCDATA(_ text: String) {
        guard !text.isEmpty else { return }
        append("<![CDATA[")
        appendEscaped(text, scanning: .cdata) { source, i in
            switch source[i] {
            case UInt8(ascii: "]")
            where i + 2 < source.count && source[i + 1] == UInt8(ascii: "]") && source[i + 2] == UInt8(ascii: ">"):
                ("]]]]><![CDATA[>", 3)
            case 0x0D: ("]]>&#13;<![CDATA[", 1)
            case 0x09, 0x0A: nil
            case 0..<0x20: ("", 1)
            case 0xEF where Self.isNoncharacter(source, at: i): ("", 3)
            default: nil
            }
        }
        append("]]>")
    }

    /// A JSON string literal, quotes included. Control characters and
    /// U+FFFE/U+FFFF are dropped; U+2028/U+2029 escaped for JavaScript.
    public mutating func appendJSONString(_ text: String) {
        append(byte: UInt8(ascii: "\""))
        appendEscaped(text, scanning: .json) { source, i in
            switch source[i] {
            case UInt8(ascii: "\""): ("\\\"", 1)
            case UInt8(ascii: "\\"): ("\\\\", 1)
            case 0x0A: ("\\n", 1)
            case 0x0D: ("\\r", 1)
            case 0x09: ("\\t", 1)
            case 0..<0x20: ("", 1)
            case 0xE2: Self.lineSeparatorEscape(source, at: i).map { ($0, 3) }
            case 0xEF where Self.isNoncharacter(source, at: i): ("", 3)
            default: nil
            }
        }
        append(byte: UInt8(ascii: "\""))
    }

    /// `\u2028` or `\u2029` when U+2028 or U+2029 (`E2 80 A8`, `E2 80 A9`)
    /// starts at `i`.
    private static func lineSeparatorEscape(_ source: UnsafeBufferPointer<UInt8>, at i: Int) -> StaticString? {
        guard i + 2 < source.count, source[i + 1] == 0x80 else { return nil }
        switch source[i + 2] {
        case 0xA8: return "\\u2028"
        case 0xA9: return "\\u2029"
        default: return nil
        }
    }

    /// U+FFFE or U+FFFF (`EF BF BE`, `EF BF BF`) starting at `i`.
    private static func isNoncharacter(_ source: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
        i + 2 < source.count && source[i + 1] == 0xBF && (source[i + 2] == 0xBE || source[i + 2] == 0xBF)
    }

    /// Copies `text`, replacing what `replacement` names (the text to write
    /// instead and how many bytes it replaces); unescaped runs are copied whole.
    @inline(__always)
    private mutating func appendEscaped(
        _ text: String, scanning specials: Specials,
        replacement: (UnsafeBufferPointer<UInt8>, Int) -> (StaticString, Int)?
    ) {
        var text = text
        text.withUTF8 { source in
            reserve(source.count)  // one growth at most when there is little to escape
            var runStart = 0
            var i = 0
            while i < source.count {
                i = Self.skipPlain(source, from: i, specials)
                guard i < source.count else { break }
                guard let (escaped, length) = replacement(source, i) else {
                    i += 1
                    continue
                }
                if i > runStart { append(source.baseAddress! + runStart, count: i - runStart) }
                append(escaped.utf8Start, count: escaped.utf8CodeUnitCount)
                i += length
                runStart = i
            }
            if source.count > runStart { append(source.baseAddress! + runStart, count: source.count - runStart) }
        }
    }
}
