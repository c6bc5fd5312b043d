internal import CLibXML2

/// An XML document read into libxml2's tree to be changed in place, as
/// Venus's Python filters change the entry document they read with
/// `minidom`; owned here and freed with this object. No node leaves it.
final class EditableDocument {
    private let document: xmlDocPtr

    /// The document, or nil when the text is not well-formed XML (read
    /// with no network and no entity substituted).
    init?(parsing text: String) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count < Int32.max,
            let parsed = bytes.withUnsafeBufferPointer({ buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    xmlReadMemory(
                        $0, Int32(buffer.count), "feedmerge:document.xml", "utf-8",
                        Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue))
                }
            })
        else { return nil }
        document = parsed
    }

    deinit { xmlFreeDoc(document) }

    /// The document as UTF-8 XML text, with its XML declaration.
    func serialized() -> String? {
        var text: UnsafeMutablePointer<xmlChar>?
        var length: Int32 = 0
        xmlDocDumpMemoryEnc(document, &text, &length, "utf-8")
        guard let text else { return nil }
        defer { CLibXML2_free(text) }
        return String(decoding: UnsafeBufferPointer(start: text, count: Int(length)), as: UTF8.self)
    }

    /// Every element in document order, each with its qualified name
    /// (`prefix:name`, or `name`), as `minidom`'s `getElementsByTagName` matches it.
    func elements() -> [(node: xmlNodePtr, name: String)] {
        var result: [(node: xmlNodePtr, name: String)] = []
        var stack: [xmlNodePtr] = []
        if let root = xmlDocGetRootElement(document) { stack.append(root) }
        while let node = stack.popLast() {
            let local = node.pointee.name.map { String(cString: $0) } ?? ""
            let prefix = node.pointee.ns?.pointee.prefix.map { String(cString: $0) }
            result.append((node, prefix.map { "\($0):\(local)" } ?? local))
            var children: [xmlNodePtr] = []
            var child = node.pointee.children
            while let current = child {
                if current.pointee.type == XML_ELEMENT_NODE { children.append(current) }
                child = current.pointee.next
            }
            stack.append(contentsOf: children.reversed())
        }
        return result
    }

    /// An attribute without a namespace, or nil.
    func attribute(_ name: String, of node: xmlNodePtr) -> String? {
        guard let value = xmlGetNoNsProp(node, name) else { return nil }
        defer { CLibXML2_free(value) }
        return String(cString: value)
    }

    func setAttribute(_ name: String, _ value: String, of node: xmlNodePtr) {
        xmlSetProp(node, name, value)
    }

    /// Gives an element another local name and no attributes: what
    /// `minidom` writes for a new element that took over the children of one
    /// it replaced.
    func rename(_ node: xmlNodePtr, to name: String) {
        xmlNodeSetName(node, name)
        xmlFreePropList(node.pointee.properties)
        node.pointee.properties = nil
    }
}

@available(*, unavailable) extension EditableDocument: Sendable {}
