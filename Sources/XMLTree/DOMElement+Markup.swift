internal import CLibXML2

extension DOMElement {
    /// The element's children serialized as markup, namespace prefixes
    /// dropped: what an inline XHTML `div` (or an Atom 0.3 `mode="xml"`
    /// value) means as HTML. Text and attribute values are escaped.
    public var innerMarkup: String {
        var out: [UInt8] = []
        Self.appendChildren(of: node, to: &out, namespace: Namespace.xhtml.rawValue)
        return String(decoding: out, as: UTF8.self)
    }

    /// Elements HTML writes without an end tag.
    private static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
    ]

    /// - Parameter namespace: the default namespace in effect in the output;
    ///   XHTML at the top. Foreign content (SVG, MathML) declares its own.
    private static func appendChildren(of node: xmlNodePtr, to out: inout [UInt8], namespace: String) {
        var child = node.pointee.children
        while let current = child {
            switch current.pointee.type {
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = current.pointee.content { appendEscaped(content, to: &out, attribute: false) }
            case XML_ELEMENT_NODE:
                appendElement(current, to: &out, namespace: namespace)
            default:
                break
            }
            child = current.pointee.next
        }
    }

    private static func appendElement(_ node: xmlNodePtr, to out: inout [UInt8], namespace inherited: String) {
        var name = String(cString: node.pointee.name)
        if let colon = name.firstIndex(of: ":") { name = String(name[name.index(after: colon)...]) }
        out.append(UInt8(ascii: "<"))
        out.append(contentsOf: name.utf8)
        var namespace = inherited
        if let href = node.pointee.ns?.pointee.href.map({ String(cString: $0) }), href != inherited,
            Namespace(uri: href) != .xhtml
        {
            namespace = href
            out.append(contentsOf: " xmlns=\"".utf8)
            out.append(contentsOf: href.utf8)
            out.append(UInt8(ascii: "\""))
        }
        var attribute = node.pointee.properties
        var declaredPrefixes: Set<String> = []
        while let current = attribute {
            out.append(UInt8(ascii: " "))
            if let ns = current.pointee.ns, let prefix = ns.pointee.prefix.map({ String(cString: $0) }) {
                if prefix != "xml", !declaredPrefixes.contains(prefix), let href = ns.pointee.href {
                    declaredPrefixes.insert(prefix)
                    out.append(contentsOf: "xmlns:\(prefix)=\"".utf8)
                    appendEscaped(href, to: &out, attribute: true)
                    out.append(contentsOf: "\" ".utf8)
                }
                out.append(contentsOf: prefix.utf8)
                out.append(UInt8(ascii: ":"))
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
        appendChildren(of: node, to: &out, namespace: namespace)
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
