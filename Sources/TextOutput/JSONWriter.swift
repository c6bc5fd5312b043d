import FeedModel
/// Builds compact JSON text with keys in the order they are written, so
/// output is stable and diffable (Foundation's encoder sorts or shuffles).
public struct JSONWriter: ~Copyable {
    public init(capacity: Int = 4096) { buffer = TextBuffer(capacity: capacity) }

    /// Writes into `buffer` (a streaming one, say) for the length of `body`.
    public static func writing(into buffer: inout TextBuffer, _ body: (inout JSONWriter) -> Void) {
        var writer = JSONWriter(capacity: 0)
        swap(&writer.buffer, &buffer)
        body(&writer)
        swap(&writer.buffer, &buffer)
    }

    private var buffer: TextBuffer
    private var needsComma = [false]

    public var text: String { buffer.text }
    public var bytes: [UInt8] { buffer.bytes }

    private mutating func separate() {
        if needsComma[needsComma.count - 1] { buffer.append(byte: UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
    }

    public mutating func beginObject(_ key: StaticString? = nil) {
        if let key { self.key(key) } else { separate() }
        buffer.append(byte: UInt8(ascii: "{"))
        needsComma.append(false)
    }

    public mutating func endObject() {
        needsComma.removeLast()
        buffer.append(byte: UInt8(ascii: "}"))
    }

    public mutating func beginArray(_ key: StaticString) {
        self.key(key)
        buffer.append(byte: UInt8(ascii: "["))
        needsComma.append(false)
    }

    public mutating func endArray() {
        needsComma.removeLast()
        buffer.append(byte: UInt8(ascii: "]"))
    }

    /// Keys are the writers' own names (`"date_published"`, literals),
    /// never text from a feed, so they go out as they are.
    private mutating func key(_ key: StaticString) {
        separate()
        buffer.append(byte: UInt8(ascii: "\""))
        buffer.append(key)
        buffer.append("\":")
    }

    /// Writes `"key": "value"`; nothing at all when the value is nil.
    public mutating func field(_ key: StaticString, _ value: String?) {
        guard let value else { return }
        self.key(key)
        appendString(value)
    }

    public mutating func field(_ key: StaticString, _ value: Int?) {
        guard let value else { return }
        self.key(key)
        buffer.append(contentsOf: String(value))
    }

    /// Writes `"key": "date"` (RFC 3339); nothing at all when the date is nil.
    public mutating func field(_ key: StaticString, date: Timestamp?) {
        guard let date else { return }
        self.key(key)
        buffer.append(byte: UInt8(ascii: "\""))
        buffer.append(date, .rfc3339)
        buffer.append(byte: UInt8(ascii: "\""))
    }

    public mutating func element(_ value: String) {
        separate()
        appendString(value)
    }

    /// See `TextBuffer.drainIfFull()`.
    public mutating func drainIfFull() { buffer.drainIfFull() }

    /// A newline after the document.
    public mutating func endLine() { buffer.append(byte: 0x0A) }

    private mutating func appendString(_ value: String) { buffer.appendJSONString(value) }
}
