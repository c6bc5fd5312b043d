/// Builds compact JSON text with keys in the order they are written, so
/// output is stable and diffable (Foundation's encoder sorts or shuffles).
public struct JSONWriter {
    public init() {}

    public private(set) var text = ""
    private var needsComma = [false]

    private mutating func separate() {
        if needsComma[needsComma.count - 1] { text += "," }
        needsComma[needsComma.count - 1] = true
    }

    public mutating func beginObject(_ key: String? = nil) {
        if let key { self.key(key) } else { separate() }
        text += "{"
        needsComma.append(false)
    }

    public mutating func endObject() {
        needsComma.removeLast()
        text += "}"
    }

    public mutating func beginArray(_ key: String) {
        self.key(key)
        text += "["
        needsComma.append(false)
    }

    public mutating func endArray() {
        needsComma.removeLast()
        text += "]"
    }

    private mutating func key(_ key: String) {
        separate()
        appendString(key)
        text += ":"
    }

    /// Writes `"key": "value"`; nothing at all when the value is nil.
    public mutating func field(_ key: String, _ value: String?) {
        guard let value else { return }
        self.key(key)
        appendString(value)
    }

    public mutating func field(_ key: String, _ value: Int?) {
        guard let value else { return }
        self.key(key)
        text += String(value)
    }

    public mutating func element(_ value: String) {
        separate()
        appendString(value)
    }

    private mutating func appendString(_ value: String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{2028}": text += "\\u2028"
            case "\u{2029}": text += "\\u2029"
            default:
                // Control characters and the noncharacters U+FFFE/U+FFFF are
                // dropped: they are noise in text and XML cannot carry them.
                if scalar.value >= 0x20 && scalar.value != 0xFFFE && scalar.value != 0xFFFF {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        text += "\""
    }
}
