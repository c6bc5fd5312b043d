internal import CLibXML2

extension DOMElement {
    /// The element's children serialized as markup, namespace prefixes
    /// dropped: what an inline XHTML `div` (or an Atom 0.3 `mode="xml"`
    /// value) means as HTML. Text, attribute values and namespace URIs are
    /// escaped.
    ///
    /// Its reader is taken to have XHTML as the default namespace and no
    /// prefix bound. The fragment declares each other namespace it uses, on
    /// the element that first needs it, and nothing it does not use: foreign
    /// content (SVG, MathML) gets a default `xmlns`, prefixed attributes
    /// (`xlink:href`) their `xmlns:prefix`. Elements in no namespace or in a
    /// feed format's own namespace (markup a feed left unescaped in a title)
    /// are written as HTML, never with `xmlns="http://purl.org/atom/ns#"`.
    public var innerMarkup: String {
        var out: [UInt8] = []
        Self.appendChildren(of: node, to: &out, scope: MarkupScope())
        return String(decoding: out, as: UTF8.self)
    }

    /// Elements HTML writes without an end tag.
    private static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
    ]

    /// Namespaces whose elements are written as HTML: XHTML (any spelling
    /// of it), and the feed formats' own, which markup left unqualified in
    /// a feed's element inherited.
    private static let feedNamespaces: Set<Namespace> = [.atom, .atom03, .rss10, .rss09, .rss20, .xhtml]

    private static let xlink = "http://www.w3.org/1999/xlink"

    private static func appendChildren(of node: xmlNodePtr, to out: inout [UInt8], scope: MarkupScope) {
        var child = node.pointee.children
        while let current = child {
            switch current.pointee.type {
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = current.pointee.content { appendEscaped(content, to: &out, attribute: false) }
            case XML_ELEMENT_NODE:
                appendElement(current, to: &out, scope: scope)
            default:
                break
            }
            child = current.pointee.next
        }
    }

    private static func appendElement(_ node: xmlNodePtr, to out: inout [UInt8], scope inherited: MarkupScope) {
        var name = String(cString: node.pointee.name)
        if let colon = name.firstIndex(of: ":") { name = String(name[name.index(after: colon)...]) }
        out.append(UInt8(ascii: "<"))
        out.append(contentsOf: name.utf8)
        var scope = inherited
        var namespace = Namespace.xhtml.rawValue
        if let href = node.pointee.ns?.pointee.href.map({ String(cString: $0) }),
            href == scope.defaultNamespace || Namespace(uri: href).map({ !feedNamespaces.contains($0) }) ?? true
        {
            namespace = href
        }
        if namespace != scope.defaultNamespace {
            scope.defaultNamespace = namespace
            appendDeclaration(prefix: nil, uri: namespace, to: &out)
        }
        var attribute = node.pointee.properties
        while let current = attribute {
            var binding: (prefix: String, uri: String)?
            if let ns = current.pointee.ns, let prefix = ns.pointee.prefix.map({ String(cString: $0) }),
                prefix != "xml", let href = ns.pointee.href.map({ String(cString: $0) })
            {
                binding = (prefix, href)
            } else if current.pointee.ns == nil, bytes(ofCString: current.pointee.name).starts(with: "xlink:".utf8) {
                // The prefix was used without a declaration (naked markup in RSS): it can only mean XLink.
                binding = ("xlink", xlink)
            }
            if let binding, scope.prefixes[binding.prefix] != binding.uri {
                scope.prefixes[binding.prefix] = binding.uri
                appendDeclaration(prefix: binding.prefix, uri: binding.uri, to: &out)
            }
            attribute = current.pointee.next
        }
        attribute = node.pointee.properties
        while let current = attribute {
            out.append(UInt8(ascii: " "))
            if let prefix = current.pointee.ns?.pointee.prefix {
                out.append(contentsOf: bytes(ofCString: prefix))
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
        if node.pointee.children == nil && namespace == Namespace.xhtml.rawValue && voidElements.contains(name) {
            out.append(contentsOf: " />".utf8)
            return
        }
        out.append(UInt8(ascii: ">"))
        appendChildren(of: node, to: &out, scope: scope)
        out.append(contentsOf: "</".utf8)
        out.append(contentsOf: name.utf8)
        out.append(UInt8(ascii: ">"))
    }

    /// ` xmlns="uri"` or ` xmlns:prefix="uri"`, the URI escaped as the attribute value it is.
    /// libxml2 (entities not substituted) keeps a declaration's `&amp;` as `&#38;`: that is one `&`.
    private static func appendDeclaration(prefix: String?, uri: String, to out: inout [UInt8]) {
        out.append(contentsOf: " xmlns".utf8)
        if let prefix {
            out.append(UInt8(ascii: ":"))
            out.append(contentsOf: prefix.utf8)
        }
        out.append(contentsOf: "=\"".utf8)
        var rest = Substring(uri)
        while let ampersand = rest.firstRange(of: "&#38;") {
            appendEscaped(rest[..<ampersand.lowerBound], to: &out)
            out.append(contentsOf: "&amp;".utf8)
            rest = rest[ampersand.upperBound...]
        }
        appendEscaped(rest, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    private static func appendEscaped(_ text: Substring, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            for byte in bytes { appendEscaped(byte, to: &out, attribute: true) }
        }
    }

    /// Escapes markup characters; in an attribute also `"` and the white
    /// space a parser would otherwise normalize to spaces.
    private static func appendEscaped(_ text: UnsafePointer<UInt8>, to out: inout [UInt8], attribute: Bool) {
        var p = text
        while p.pointee != 0 {
            appendEscaped(p.pointee, to: &out, attribute: attribute)
            p += 1
        }
    }

    @inline(__always)
    private static func appendEscaped(_ byte: UInt8, to out: inout [UInt8], attribute: Bool) {
        switch byte {
        case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
        case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
        case UInt8(ascii: ">"): out.append(contentsOf: "&gt;".utf8)
        case UInt8(ascii: "\"") where attribute: out.append(contentsOf: "&quot;".utf8)
        case 0x09 where attribute: out.append(contentsOf: "&#9;".utf8)
        case 0x0A where attribute: out.append(contentsOf: "&#10;".utf8)
        case 0x0D where attribute: out.append(contentsOf: "&#13;".utf8)
        default: out.append(byte)
        }
    }
}

/// What the reader of serialized markup has in scope at a point of it.
private struct MarkupScope {
    var defaultNamespace = Namespace.xhtml.rawValue
    /// Prefixes declared by the output so far (`xml` is always bound).
    var prefixes: [String: String] = [:]
}
