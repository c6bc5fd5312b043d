/// An author or contributor.
///
/// Atom: `author`/`contributor` with `name`, `email`, `uri`; RSS 2: `author`
/// (an email, often with the name in parentheses) and `dc:creator`;
/// iTunes: `itunes:author`; JSON Feed: `authors` with `name` and `url`.
public struct Person: Sendable, Hashable {
    public var name: String?
    public var email: String?
    public var uri: String?

    public init(name: String? = nil, email: String? = nil, uri: String? = nil) {
        self.name = name
        self.email = email
        self.uri = uri
    }

    /// Whether the person carries nothing at all.
    public var isEmpty: Bool { name == nil && email == nil && uri == nil }
}

extension Person {
    /// Whether `text` is an email address: one token (no whitespace, control
    /// characters, brackets, parentheses, commas, semicolons or quotes),
    /// exactly one `@`, a non-empty local part and a non-empty domain that
    /// neither starts nor ends with a dot. The parser keeps only such a value
    /// as an email; the writers write only such a value as one (Atom's schema
    /// wants `.+@.+`, JSON Feed makes it a `mailto:` URL).
    public static func isAddress(_ text: String) -> Bool {
        var ats = 0
        var localCount = 0
        var domainCount = 0
        var domainFirst: UInt8 = 0
        var domainLast: UInt8 = 0
        for byte in text.utf8 {
            switch byte {
            case 0x00...0x20, 0x7F, UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "("), UInt8(ascii: ")"),
                UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "\""), UInt8(ascii: "["), UInt8(ascii: "]"):
                return false
            case UInt8(ascii: "@"):
                ats += 1
            default:
                if ats == 0 {
                    localCount += 1
                } else {
                    if domainCount == 0 { domainFirst = byte }
                    domainLast = byte
                    domainCount += 1
                }
            }
        }
        return ats == 1 && localCount > 0 && domainCount > 0 && domainFirst != UInt8(ascii: ".")
            && domainLast != UInt8(ascii: ".")
    }
}
