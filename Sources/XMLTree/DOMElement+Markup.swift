internal import CLibXML2

extension DOMElement {
    /// The element's children serialized as markup, namespace prefixes
    /// dropped: what an inline XHTML `div` (or an Atom 0.3 `mode="xml"`
    /// value) means as HTML. Text and attribute values are escaped.
    public var innerMarkup: String {
        var out: [UInt8] = []
        Self.appendChildren(of: node, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Elements HTML writes without an end tag.
    private static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
    ]

    private static func appendChildren(of node: xmlNodePtr, to out: inout [UInt8]) {
        var child = node.pointee.children
        while let current = child {
            switch current.pointee.type {
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = current.pointee.content { appendEscaped(content, to: &out, attribute: false) }
            case XML_ELEMENT_NODE:
                appendElement(current, to: &out)
            default:
                break
            }
            child = current.pointee.next
        }
    }

    private static func appendElement(_ node: xmlNodePtr, to out: inout [UInt8]) {
        var name = String(cString: node.pointee.name)
        if let colon = name.firstIndex(of: ":") { name = String(name[name.index(after: colon)...]) }
        out.append(UInt8(ascii: "<"))
        out.append(contentsOf: name.utf8)
        var attribute = node.pointee.properties
        while let current = attribute {
            out.append(UInt8(ascii: " "))
            if let prefix = current.pointee.ns?.pointee.prefix, String(cString: prefix) == "xml" {
                out.append(contentsOf: "xml:".utf8)
            }
            out.append(contentsOf: bytes(ofCString: current.pointee.name))
            out.append(contentsOf: "=\"".utf8)
            var valueNode = current.pointee.children
            while let text = valueNode {
                if let content = text.pointee.content { appendEscaped(content, to: &out, attribute: true) }
                valueNode = text.pointee.next
            }
            out.append(UInt8(ascii: "\""))
            attribute = current.pointee.next
        }
        if node.pointee.children == nil && voidElements.contains(name) {
            out.append(contentsOf: " />".utf8)
            return
        }
        out.append(UInt8(ascii: ">"))
        appendChildren(of: node, to: &out)
        out.append(contentsOf: "</".utf8)
        out.append(contentsOf: name.utf8)
        out.append(UInt8(ascii: ">"))
    }

    private static func appendEscaped(_ text: UnsafePointer<UInt8>, to out: inout [UInt8], attribute: Bool) {
        var p = text
        while p.pointee != 0 {
            switch p.pointee {
            case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): out.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\"") where attribute: out.append(contentsOf: "&quot;".utf8)
            default: out.append(p.pointee)
            }
            p += 1
        }
    }
}
