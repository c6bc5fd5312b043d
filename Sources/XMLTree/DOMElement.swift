internal import CLibXML2
import Basics

/// An element of a `DOMDocument`. It holds its document strongly, so it
/// stays valid for as long as it exists.
public struct DOMElement {
    public let document: DOMDocument
    let node: xmlNodePtr

    init(document: DOMDocument, node: xmlNodePtr?) {
        self.document = document
        // Only called with nodes libxml2 returned for this document.
        self.node = node!
    }

    /// The local name. A prefix the document used without declaring it
    /// (`<dc:creator>` with no `xmlns:dc`) is split off, see `namespace`.
    public var name: String { document.name(for: node.pointee.name).local }

    /// The local name in lower case, for formats whose names appear in any
    /// case in the wild (`<TITLE>`, `<pubdate>`).
    public var lowercasedName: String { document.name(for: node.pointee.name).lowercased }

    /// The namespace URI, as the document declared it.
    public var namespaceURI: String? {
        node.pointee.ns?.pointee.href.map { String(cString: $0) }
    }

    /// The namespace of this element: nil for none, `.other` for one not
    /// listed in `Namespace`; for an undeclared prefix, the namespace
    /// conventionally bound to it.
    public var namespace: Namespace? {
        if let ns = node.pointee.ns { return document.namespace(for: ns) }
        return document.name(for: node.pointee.name).prefixNamespace
    }

    /// Whether the element is `name` in `namespace` (nil: no namespace).
    public func `is`(_ name: String, in namespace: Namespace?) -> Bool {
        self.namespace == namespace && self.name == name
    }

    /// The line of the start tag.
    public var line: Int { Int(xmlGetLineNo(node)) }

    /// The child elements, in document order.
    public var children: DOMChildren { DOMChildren(parent: self) }

    /// The first child element called `name` in `namespace`.
    public func child(_ name: String, in namespace: Namespace? = nil) -> DOMElement? {
        children.first { $0.is(name, in: namespace) }
    }

    /// The parent element, nil for the root.
    public var parent: DOMElement? {
        guard let up = node.pointee.parent, up.pointee.type == XML_ELEMENT_NODE else { return nil }
        return DOMElement(document: document, node: up)
    }

    /// All text below the element, CDATA included, markup left out.
    public var text: String {
        if let only = node.pointee.children, only.pointee.next == nil, only.pointee.type == XML_TEXT_NODE,
            let content = only.pointee.content
        {
            return String(cString: content)
        }
        var bytes: [UInt8] = []
        Self.appendText(of: node, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `text` without leading and trailing whitespace, nil when nothing is
    /// left. Trimmed on the bytes, so a value is copied into a String once.
    public var trimmedText: String? {
        withTrimmedText { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the UTF-8 bytes of `trimmedText`, without making a
    /// String (for values that are parsed, like dates); nil when empty.
    public func withTrimmedText<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result? {
        if let only = node.pointee.children, only.pointee.next == nil, only.pointee.type == XML_TEXT_NODE,
            let content = only.pointee.content
        {
            return Self.trimmed(XMLTree.bytes(ofCString: content)).map(body)
        }
        var bytes: [UInt8] = []
        Self.appendText(of: node, to: &bytes)
        return bytes.withUnsafeBufferPointer { Self.trimmed($0).map(body) }
    }

    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        var start = 0
        var end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        guard start < end else { return nil }
        return UnsafeBufferPointer(rebasing: bytes[start..<end])
    }

    private static func appendText(of node: xmlNodePtr, to bytes: inout [UInt8]) {
        var child = node.pointee.children
        while let current = child {
            switch current.pointee.type {
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = current.pointee.content {
                    bytes.append(contentsOf: XMLTree.bytes(ofCString: content))
                }
            case XML_ELEMENT_NODE:
                appendText(of: current, to: &bytes)
            default:
                break
            }
            child = current.pointee.next
        }
    }

    /// The value of an attribute; `namespace` nil means an unprefixed one.
    public func attribute(_ name: String, in namespace: Namespace? = nil) -> String? {
        var attribute = node.pointee.properties
        while let current = attribute {
            if attributeMatches(current, name: name, namespace: namespace) {
                return Self.value(of: current)
            }
            attribute = current.pointee.next
        }
        return nil
    }

    /// Every attribute as (namespace URI, local name, value), in document order.
    public var attributes: [(namespaceURI: String?, name: String, value: String)] {
        var result: [(String?, String, String)] = []
        var attribute = node.pointee.properties
        while let current = attribute {
            let uri = current.pointee.ns?.pointee.href.map { String(cString: $0) }
            result.append((uri, String(cString: current.pointee.name), Self.value(of: current)))
            attribute = current.pointee.next
        }
        return result
    }

    private func attributeMatches(_ attribute: xmlAttrPtr, name: String, namespace: Namespace?) -> Bool {
        let stored = bytes(ofCString: attribute.pointee.name)
        if let ns = attribute.pointee.ns {
            return namespace != nil && document.namespace(for: ns) == namespace && utf8(of: name, equals: stored)
        }
        if let namespace {  // an undeclared prefix stays part of the name
            let prefix = namespace.prefix.utf8
            return stored.count == prefix.count + 1 + name.utf8.count && stored.starts(with: prefix)
                && stored[prefix.count] == UInt8(ascii: ":") && stored[(prefix.count + 1)...].elementsEqual(name.utf8)
        }
        return utf8(of: name, equals: stored)
    }

    private static func value(of attribute: xmlAttrPtr) -> String {
        if let only = attribute.pointee.children, only.pointee.next == nil, let content = only.pointee.content {
            return String(decoding: XMLTree.bytes(ofCString: content), as: UTF8.self)
        }
        var bytes: [UInt8] = []
        var child = attribute.pointee.children
        while let current = child {
            if let content = current.pointee.content {
                bytes.append(contentsOf: XMLTree.bytes(ofCString: content))
            }
            child = current.pointee.next
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The `xml:lang` in scope, as a BCP 47 tag (`en_US` written `en-US`).
    /// An empty `xml:lang=""` says the language is unknown (XML 1.0,
    /// section 2.12): nil, whatever an outer element said.
    public var language: String? {
        guard document.mentions.xmlLang else { return nil }
        var current: DOMElement? = self
        while let element = current {
            if let lang = element.attribute("lang", in: .xml) { return Self.languageTag(lang) }
            current = element.parent
        }
        return nil
    }

    /// A language value (`xml:lang`, RSS `language`, `dc:language`) as a
    /// BCP 47 tag: trimmed, `_` written `-`; nil when empty.
    public static func languageTag(_ value: String) -> String? {
        let trimmed = value.trimmingWhitespace
        guard !trimmed.isEmpty else { return nil }
        return trimmed.contains("_") ? trimmed.replacingAll("_", with: "-") : trimmed
    }

    /// The `xml:base` values in scope, outermost first; each is resolved
    /// against the ones before it and, first of all, the document URL.
    public var baseChain: [String] {
        guard document.mentions.xmlBase else { return [] }
        var chain: [String] = []
        var current: DOMElement? = self
        while let element = current {
            if let base = element.attribute("base", in: .xml) { chain.append(base) }
            current = element.parent
        }
        return chain.reversed()
    }
}

@available(*, unavailable)
extension DOMElement: Sendable {}

/// The child elements of an element, lazily, in document order.
public struct DOMChildren: Sequence {
    let parent: DOMElement

    public struct Iterator: IteratorProtocol {
        let document: DOMDocument
        var pending: xmlNodePtr?

        public mutating func next() -> DOMElement? {
            while let current = pending {
                pending = current.pointee.next
                if current.pointee.type == XML_ELEMENT_NODE {
                    return DOMElement(document: document, node: current)
                }
            }
            return nil
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(document: parent.document, pending: parent.node.pointee.children)
    }
}
