import FeedModel

extension Person {
    /// Whether a value can be written as an email address: one token with
    /// one `@` between a non-empty local part and a non-empty domain. A
    /// person whose `email` is anything else is written without one (Atom's
    /// schema requires `.+@.+`; JSON Feed would turn it into a `mailto:` URL).
    static func isAddress(_ value: String) -> Bool {
        var at = 0
        var local = 0
        var domain = 0
        for byte in value.utf8 {
            if byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
                || byte == UInt8(ascii: "(") || byte == UInt8(ascii: ")") || byte == UInt8(ascii: ",")
            {
                return false
            }
            if byte == UInt8(ascii: "@") {
                at += 1
            } else if at == 0 {
                local += 1
            } else {
                domain += 1
            }
        }
        return at == 1 && local > 0 && domain > 0
    }
}

extension Enclosure {
    /// The type when it is a media type (`type/subtype`); feeds also write
    /// `""` or `audio`, which Atom's schema refuses.
    var mediaType: String? {
        guard let type, let slash = type.utf8.firstIndex(of: UInt8(ascii: "/")), slash != type.utf8.startIndex,
            type.utf8.index(after: slash) != type.utf8.endIndex, !type.utf8.contains(UInt8(ascii: " "))
        else { return nil }
        return type
    }
}
