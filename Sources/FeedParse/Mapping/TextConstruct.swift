import Basics
import FeedModel
import XMLTree

/// Reading text constructs: Atom's `type` (and Atom 0.3's `mode`), and RSS
/// elements whose kind is fixed by the format.
extension MappingContext {
    /// An Atom 1.0 or 0.3 text construct (`title`, `subtitle`, `summary`,
    /// `content`, `rights`), links inside HTML made absolute.
    /// - Parameter legacyAtom: Atom 0.3, where `type` is a MIME type, `mode`
    ///   says how it is encoded (`xml` by default) and an inline XHTML value
    ///   keeps its `div`.
    func textConstruct(_ element: DOMElement, legacyAtom: Bool) -> Text? {
        let type = (element.attribute("type") ?? (legacyAtom ? "text/plain" : "text")).trimmingWhitespace.lowercased()
        let kind: TextKind
        var isBinary = false
        switch type {
        case "text", "text/plain", "": kind = .text
        case "html", "text/html": kind = .html
        case "xhtml", "application/xhtml+xml": kind = .xhtml
        default:
            kind = .text
            // RFC 4287 4.1.3.3: a MIME type neither text/* nor XML is Base64.
            isBinary = !legacyAtom && !type.hasPrefix("text/") && !type.hasSuffix("xml")
        }
        let hasChildElements = element.children.contains { _ in true }
        var mode = element.attribute("mode")?.trimmingWhitespace.lowercased()
        if isBinary { mode = "base64" }
        if legacyAtom && mode == nil { mode = hasChildElements ? "xml" : "escaped" }
        let trimmed: String?
        switch mode {
        case "base64":
            trimmed =
                Base64.decode(element.text).map { String(decoding: $0, as: UTF8.self).trimmingWhitespace }
                ?? element.trimmedText
        case "xml" where legacyAtom || kind != .xhtml:
            trimmed = element.innerMarkup.trimmingWhitespace
        case "escaped":
            trimmed = element.trimmedText
        default:
            if kind == .xhtml {
                let children = Array(element.children)
                let wrapper = children.count == 1 && children[0].name == "div" ? children[0] : element
                trimmed = wrapper.innerMarkup.trimmingWhitespace
            } else if hasChildElements {
                trimmed = element.innerMarkup.trimmingWhitespace  // markup that should have been escaped
            } else {
                trimmed = element.trimmedText
            }
        }
        guard let value = trimmed, !value.isEmpty else { return nil }
        let resultKind: TextKind = legacyAtom && mode == "xml" && kind == .text ? .html : kind
        return absolutizingLinks(Text(value, kind: resultKind), at: element)
    }

    /// An RSS element of fixed kind; HTML values get their links made
    /// absolute, and naked markup (`<description><p>..</p></description>`)
    /// is kept as markup.
    func rssText(_ element: DOMElement, kind: TextKind) -> Text? {
        let hasChildElements = kind == .html && element.children.contains { _ in true }
        let raw = hasChildElements ? element.innerMarkup.trimmingWhitespace : text(element)
        guard let value = raw, !value.isEmpty else { return nil }
        return absolutizingLinks(Text(value, kind: kind), at: element)
    }
}

/// Base64 decoding for Atom 0.3 `mode="base64"` (no Foundation needed).
enum Base64 {
    static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for c in text.utf8 {
            let v: UInt32
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - 65)
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - 97 + 26)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c - 48 + 52)
            case UInt8(ascii: "+"), UInt8(ascii: "-"): v = 62
            case UInt8(ascii: "/"), UInt8(ascii: "_"): v = 63
            case UInt8(ascii: "="), 0x20, 0x09, 0x0A, 0x0D: continue
            default: return nil
            }
            buffer = buffer << 6 | v
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((buffer >> UInt32(bits)) & 0xFF))
            }
        }
        return out
    }
}
