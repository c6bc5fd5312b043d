internal import CLibXML2

extension DOMDocument {
    /// The elements an XPath expression selects, in document order.
    ///
    /// Prefixes in the expression are *ours* (`Namespace.prefix`: `atom:`,
    /// `rss:`, `dc:`, ...), whatever prefixes the document itself used.
    /// - Parameters:
    ///   - expression: an XPath 1.0 expression selecting elements.
    ///   - context: the context node; the document when nil.
    /// - Throws: `DOMError` with code `.xpath` when the expression is invalid.
    public func select(_ expression: String, from context: DOMElement? = nil) throws(DOMError) -> [DOMElement] {
        try evaluate(expression, from: context) { object in
            guard let set = object.pointee.nodesetval, set.pointee.nodeNr > 0, let nodes = set.pointee.nodeTab else {
                return []
            }
            var result: [DOMElement] = []
            result.reserveCapacity(Int(set.pointee.nodeNr))
            for index in 0..<Int(set.pointee.nodeNr) {
                if let node = nodes[index], node.pointee.type == XML_ELEMENT_NODE {
                    result.append(DOMElement(document: self, node: node))
                }
            }
            return result
        }
    }

    /// The string value of an XPath expression (`string(...)`, `count(...)`).
    public func string(_ expression: String, from context: DOMElement? = nil) throws(DOMError) -> String {
        try evaluate(expression, from: context) { object in
            guard let value = xmlXPathCastToString(object) else { return "" }
            defer { CLibXML2_free(value) }
            return String(cString: value)
        }
    }

    /// Runs an expression in a fresh context with our prefixes registered and
    /// hands the result object to `read`; both are freed afterwards.
    private func evaluate<T>(
        _ expression: String, from context: DOMElement?, _ read: (xmlXPathObjectPtr) -> T
    ) throws(DOMError) -> T {
        guard let xpath = xmlXPathNewContext(pointer) else {
            throw DOMError(code: .xpath, message: "libxml2 could not allocate an XPath context")
        }
        defer { xmlXPathFreeContext(xpath) }
        for namespace in Namespace.allCases where namespace != .xml {
            xmlXPathRegisterNs(xpath, namespace.prefix, namespace.rawValue)
        }
        if let context { xpath.pointee.node = context.node }
        guard let object = xmlXPathEvalExpression(expression, xpath) else {
            throw DOMError(code: .xpath, message: "invalid XPath expression: \(expression)")
        }
        defer { xmlXPathFreeObject(object) }
        return read(object)
    }
}
