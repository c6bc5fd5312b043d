import FeedModel
import XMLTree

/// Reading text constructs: Atom's `type` (and Atom 0.3's `mode`), and RSS
/// elements whose kind is fixed by the format.
extension MappingContext {
    /// An Atom 1.0 or 0.3 text construct (`title`, `subtitle`, `summary`,
    /// `content`, `rights`), links inside HTML made absolute.
    func textConstruct(_ element: DOMElement) -> Text? {
        let type = (element.attribute("type") ?? "text").trimmingWhitespace.lowercased()
        let mode = element.attribute("mode")?.trimmingWhitespace.lowercased()
        let kind: TextKind
        switch type {
        case "text", "text/plain", "": kind = .text
        case "html", "text/html": kind = .html
        case "xhtml", "application/xhtml+xml": kind = .xhtml
        default: kind = type.hasSuffix("xml") || type.hasPrefix("text/") ? .text : .text
        }
        var value: String
        switch mode {
        case "escaped":
            value = element.text
        case "base64":
            value = Base64.decode(element.text).map { String(decoding: $0, as: UTF8.self) } ?? element.text
        case "xml":
            value = element.innerMarkup
        default:
            if kind == .xhtml {
                let children = Array(element.children)
                if children.count == 1, children[0].name == "div" {
                    value = children[0].innerMarkup
                } else {
                    value = element.innerMarkup
                }
            } else if kind == .html, element.children.first(where: { _ in true }) != nil {
                value = element.innerMarkup  // markup that should have been escaped
            } else {
                value = element.text
            }
        }
        value = value.trimmingWhitespace
        guard !value.isEmpty || element.attribute("src") != nil else { return nil }
        return absolutizingLinks(Text(value, kind: kind), at: element)
    }

    /// An RSS element of fixed kind; HTML values get their links made absolute.
    func rssText(_ element: DOMElement, kind: TextKind) -> Text? {
        guard let value = text(element) else { return nil }
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
