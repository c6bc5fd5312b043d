internal import CLibXML2
import Glibc

/// A document read element by element, in order, without a tree (libxml2's
/// `xmlTextReader`): memory stays that of the element being read, however
/// long the document. For documents read once from start to end, where a
/// tree would cost more than what is taken from it (an OPML list of
/// 100,000 feeds: a tree of 70 MB for 10 MB of subscriptions).
///
/// The bytes are prepared as `DOMDocument(parsing:)` prepares them (the
/// encoding decided, DOCTYPE and entity references repaired), with the same
/// parser options; the document must be well-formed, as it is or once
/// repaired: a reading that fails half-way is given up, and its events
/// discarded by the caller (`read` calls `body` again from the start for
/// the repaired bytes).
public enum ElementStream {
    /// One step of the reading.
    public enum Event {
        /// An element's start: its depth (the root's is 0), local name,
        /// namespace, attributes (namespace declarations left out), line,
        /// and whether it is empty (`<a/>`: no `end` follows).
        case start(Element)
        case end(depth: Int)
        /// Character data (text and CDATA) directly inside the element at `depth - 1`.
        case text(String, depth: Int)
    }

    public struct Element {
        public var depth: Int
        public var name: String
        public var namespaceURI: String?
        public var attributes: [(name: String, namespaceURI: String?, value: String)]
        public var line: Int
        public var isEmpty: Bool

        /// The value of the attribute of this name in no namespace.
        public func attribute(_ name: String) -> String? {
            attributes.first { $0.name == name && $0.namespaceURI == nil }?.value
        }
    }

    /// Reads the document, calling `begin` before each attempt (as it is,
    /// then repaired) and `body` for each event of it.
    /// - Throws: `DOMError` when the document is not well-formed, even repaired.
    public static func read(
        _ bytes: [UInt8], url: String?, begin: () -> Void, _ body: (Event) -> Void
    ) throws(DOMError) {
        try bytes.withUnsafeBufferPointer { original throws(DOMError) in
            _ = DOMDocument.setUp
            let decoded = XMLInput.decode(original, contentType: nil)
            var failure: DOMError?
            if decoded.mayParseAsIs {
                begin()
                failure = decoded.withBytes(original: original) { stream($0, url: url, body) }
                guard failure != nil else { return }
            }
            begin()
            let repaired = decoded.repaired(original: original)
            if let second = repaired.withBytes(original: original, { stream($0, url: url, body) }) {
                throw failure ?? second
            }
        }
    }

    /// One strict reading of prepared bytes; the first error, or nil.
    private static func stream(_ prepared: UnsafeBufferPointer<UInt8>, url: String?, _ body: (Event) -> Void)
        -> DOMError?
    {
        guard !prepared.isEmpty, let base = prepared.baseAddress else {
            return DOMError(code: .empty, message: "empty document")
        }
        guard
            let reader = base.withMemoryRebound(
                to: CChar.self, capacity: prepared.count,
                {
                    xmlReaderForMemory($0, Int32(prepared.count), url, nil, DOMDocument.strictOptions)
                })
        else { return DOMError(code: .notXML, message: "libxml2 could not allocate a reader") }
        defer { xmlFreeTextReader(reader) }
        let log = ErrorLog()
        let unmanaged = Unmanaged.passRetained(log)
        defer { unmanaged.release() }
        xmlTextReaderSetStructuredErrorHandler(reader, ErrorLog.record, unmanaged.toOpaque())
        while true {
            let status = xmlTextReaderRead(reader)
            if status == 0 { break }
            guard status == 1, log.first == nil else {
                return log.first ?? DOMError(code: .notXML, message: "not well-formed XML")
            }
            let depth = Int(xmlTextReaderDepth(reader))
            switch xmlTextReaderNodeType(reader) {
            case Int32(XML_READER_TYPE_ELEMENT.rawValue):
                body(.start(element(reader, depth: depth)))
            case Int32(XML_READER_TYPE_END_ELEMENT.rawValue):
                body(.end(depth: depth))
            case Int32(XML_READER_TYPE_TEXT.rawValue), Int32(XML_READER_TYPE_CDATA.rawValue),
                Int32(XML_READER_TYPE_SIGNIFICANT_WHITESPACE.rawValue), Int32(XML_READER_TYPE_WHITESPACE.rawValue):
                body(.text(string(xmlTextReaderConstValue(reader)) ?? "", depth: depth))
            default:
                break
            }
        }
        return log.first
    }

    private static func element(_ reader: xmlTextReaderPtr, depth: Int) -> Element {
        var result = Element(
            depth: depth, name: string(xmlTextReaderConstLocalName(reader)) ?? "",
            namespaceURI: string(xmlTextReaderConstNamespaceUri(reader)), attributes: [],
            line: xmlTextReaderCurrentNode(reader).map { Int(xmlGetLineNo($0)) } ?? 0,
            isEmpty: xmlTextReaderIsEmptyElement(reader) == 1)
        while xmlTextReaderMoveToNextAttribute(reader) == 1 {
            guard xmlTextReaderIsNamespaceDecl(reader) != 1 else { continue }
            result.attributes.append(
                (
                    string(xmlTextReaderConstLocalName(reader)) ?? "", string(xmlTextReaderConstNamespaceUri(reader)),
                    string(xmlTextReaderConstValue(reader)) ?? ""
                ))
        }
        xmlTextReaderMoveToElement(reader)
        return result
    }

    private static func string(_ pointer: UnsafePointer<xmlChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    /// The first error libxml2 reports.
    private final class ErrorLog {
        var first: DOMError?

        static let record: xmlStructuredErrorFunc = { userData, error in
            guard let userData, let error else { return }
            let log = Unmanaged<ErrorLog>.fromOpaque(userData).takeUnretainedValue()
            if log.first == nil { log.first = DOMDocument.domError(from: error) }
        }
    }
}
