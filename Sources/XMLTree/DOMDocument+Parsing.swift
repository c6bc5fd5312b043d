import Basics
// How `DOMDocument(parsing:)` turns bytes into a libxml2 tree: the strict
// then repairing passes, the parser options, the error log, the handling of
// cut documents, and the scan for `xml:lang` and `xml:base` mentions.
internal import CLibXML2
import Glibc

extension DOMDocument {
    struct Parsed {
        var document: xmlDocPtr
        var wellFormed: Bool
        var recoveredError: DOMError?
        var warnings: [String]
        var mentions: XMLAttributeMentions
    }

    static let setUp: Void = CLibXML2_initialize()

    /// Options: never the network, no entity substitution, no DTD loading
    /// or attribute defaulting, no XInclude, no huge mode (so depth stays
    /// at 256 and text nodes at 10 MB), CDATA merged into text, the
    /// encoding already decided (`IGNORE_ENC`).
    static let strictOptions: Int32 = Int32(
        XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
            | XML_PARSE_NOCDATA.rawValue | XML_PARSE_COMPACT.rawValue | XML_PARSE_IGNORE_ENC.rawValue)
    /// The same, recovering from well-formedness errors.
    private static let recoverOptions: Int32 = strictOptions | Int32(XML_PARSE_RECOVER.rawValue)

    /// Plain UTF-8 is first parsed as it is, strictly: most feeds are
    /// well-formed, and for them the repair pass would change nothing. Any
    /// error, and anything else, goes through repair and recover mode.
    static func read(
        _ original: UnsafeBufferPointer<UInt8>, url: String?, contentType: String?, limits: Limits
    ) -> Result<Parsed, DOMError> {
        _ = setUp
        let decoded = XMLInput.decode(original, contentType: contentType)
        if decoded.mayParseAsIs && !limits.alwaysRepairs,
            case .success(let parsed) = parse(
                decoded, original: original, url: url, options: strictOptions, limits: limits),
            parsed.wellFormed
        {
            return .success(parsed)
        }
        let repaired = parse(
            decoded.repaired(original: original), original: original, url: url, options: recoverOptions, limits: limits)
        if case .success(let parsed) = repaired, parsed.wellFormed { return repaired }
        // Still broken: raw HTML void elements (`<br>`) may be why, and left open they make
        // libxml2's recovery nest every later item inside one. A second pass closes them.
        let closing = decoded.repaired(original: original, closingVoidElements: true)
        guard closing.closedVoidElements > 0 else { return repaired }
        let second = parse(closing, original: original, url: url, options: recoverOptions, limits: limits)
        guard case .success = second else { return repaired }
        if case .success(let first) = repaired { xmlFreeDoc(first.document) }
        return second
    }

    private static func parse(
        _ input: XMLInput, original: UnsafeBufferPointer<UInt8>, url: String?, options: Int32, limits: Limits
    ) -> Result<Parsed, DOMError> {
        input.withBytes(original: original) { prepared in
            guard !prepared.isEmpty, let base = prepared.baseAddress else {
                return .failure(DOMError(code: .empty, message: "empty document"))
            }
            guard let context = xmlNewParserCtxt() else {
                return .failure(DOMError(code: .notXML, message: "libxml2 could not allocate a parser context"))
            }
            defer { xmlFreeParserCtxt(context) }
            let log = ErrorLog()
            context.pointee._private = Unmanaged.passUnretained(log).toOpaque()
            context.pointee.sax.pointee.serror = ErrorLog.record
            // Read through callbacks, not xmlCtxtReadMemory: libxml2 2.9 copies a
            // memory input whole before parsing, while it reads callback input
            // a few kilobytes at a time, so a big feed is not in memory twice.
            var reader = Reader(base: base, count: prepared.count)
            let document = withExtendedLifetime(log) {
                withUnsafeMutablePointer(to: &reader) {
                    xmlCtxtReadIO(context, Reader.read, nil, $0, url, nil, options)
                }
            }
            // The first error says where the document went wrong; later ones follow from it.
            let error = log.first ?? lastError(of: context)
            guard let document else {
                return .failure(error ?? DOMError(code: .notXML, message: "not XML"))
            }
            let wellFormed = context.pointee.wellFormed != 0
            guard xmlDocGetRootElement(document) != nil, wellFormed || options & Int32(XML_PARSE_RECOVER.rawValue) != 0
            else {
                xmlFreeDoc(document)
                return .failure(error ?? DOMError(code: .notXML, message: "no root element"))
            }
            var warnings = input.warnings
            if !wellFormed, let error {
                warnings.append("not well-formed XML, recovered: \(error)")
            }
            // Records nested by unclosed tags are moved out first: then, in a cut document, the
            // record left unfinished is the innermost open one, and only it is dropped.
            if !wellFormed, let root = xmlDocGetRootElement(document),
                let moved = Truncation.liftNestedRecords(in: root, recordNames: limits.recordNames)
            {
                warnings.append(moved)
            }
            // Elements left open at the end, in a document that ends with its root's end tag, were
            // left open by mismatched tags (raw `<br>` in a description), not by a cut: nothing is dropped.
            if let root = log.openAtEnd.first, !Truncation.endsWithEndTag(of: root, prepared) {
                warnings.append(Truncation.dropUnfinishedRecord(open: log.openAtEnd, recordNames: limits.recordNames))
            }
            if log.depthExceeded {
                warnings.append("elements nested deeper than 256 levels (unclosed tags?): what follows was not read")
            }
            return .success(
                Parsed(
                    document: document, wellFormed: wellFormed, recoveredError: wellFormed ? nil : error,
                    warnings: warnings, mentions: XMLAttributeMentions(prepared)))
        }
    }

    /// The document's bytes, handed to libxml2 a piece at a time.
    private struct Reader {
        let base: UnsafePointer<UInt8>
        let count: Int
        var offset = 0

        static let read: xmlInputReadCallback = { context, buffer, length in
            guard let context, let buffer, length > 0 else { return -1 }
            let reader = context.assumingMemoryBound(to: Reader.self)
            let piece = min(Int(length), reader.pointee.count - reader.pointee.offset)
            UnsafeMutableRawPointer(buffer).copyMemory(
                from: reader.pointee.base + reader.pointee.offset, byteCount: piece)
            reader.pointee.offset += piece
            return Int32(piece)
        }
    }

    private static func lastError(of context: xmlParserCtxtPtr) -> DOMError? {
        withUnsafePointer(to: context.pointee.lastError) { domError(from: $0) }
    }

    static func domError(from error: UnsafePointer<xmlError>) -> DOMError? {
        guard error.pointee.code != 0 else { return nil }
        let message =
            error.pointee.message.map { String(cString: $0) }?.trimmingWhitespace
            ?? "libxml2 error \(error.pointee.code)"
        return DOMError(code: .notXML, message: message, line: error.pointee.line > 0 ? Int(error.pointee.line) : nil)
    }

    /// Keeps the first error of one parse. libxml2 only remembers the last;
    /// its structured-error hook on the context's SAX handler sees them all.
    /// Also keeps the elements still open when the input ran out (the
    /// document was truncated), outermost first.
    private final class ErrorLog {
        var first: DOMError?
        var openAtEnd: [xmlNodePtr] = []
        /// libxml2 stopped at its depth limit: the rest of the document is lost.
        var depthExceeded = false

        static let record: xmlStructuredErrorFunc = { userData, error in
            guard let userData, let error else { return }
            let context = userData.assumingMemoryBound(to: xmlParserCtxt.self)
            guard let owner = context.pointee._private else { return }
            let log = Unmanaged<ErrorLog>.fromOpaque(owner).takeUnretainedValue()
            if log.first == nil { log.first = DOMDocument.domError(from: error) }
            if let message = error.pointee.message, strstr(message, "Excessive depth") != nil {
                log.depthExceeded = true
            }
            // "Premature end of data in tag": libxml2 reports it once, when the
            // input ends with elements open; its node stack is still intact.
            if error.pointee.code == Int32(XML_ERR_TAG_NOT_FINISHED.rawValue), let stack = context.pointee.nodeTab {
                log.openAtEnd = (0..<Int(context.pointee.nodeNr)).compactMap { stack[$0] }
            }
        }
    }
}

/// Whether a document's text contains `xml:lang` and `xml:base` anywhere.
/// The `xml` prefix cannot be bound to anything else, so an element can
/// only carry these attributes if the text spells them out.
struct XMLAttributeMentions {
    var xmlLang = false
    var xmlBase = false

    init(_ text: UnsafeBufferPointer<UInt8>) {
        guard let base = text.baseAddress else { return }
        var i = 0
        while i < text.count, !(xmlLang && xmlBase) {
            guard let hit = memchr(base + i, Int32(UInt8(ascii: ":")), text.count - i) else { break }
            let colon = UnsafeRawPointer(hit).assumingMemoryBound(to: UInt8.self) - base
            i = colon + 1
            guard colon >= 3, colon + 4 < text.count, base[colon - 3] == UInt8(ascii: "x"),
                base[colon - 2] == UInt8(ascii: "m"), base[colon - 1] == UInt8(ascii: "l")
            else { continue }
            let name = (base[colon + 1], base[colon + 2], base[colon + 3], base[colon + 4])
            if name == (UInt8(ascii: "l"), UInt8(ascii: "a"), UInt8(ascii: "n"), UInt8(ascii: "g")) { xmlLang = true }
            if name == (UInt8(ascii: "b"), UInt8(ascii: "a"), UInt8(ascii: "s"), UInt8(ascii: "e")) { xmlBase = true }
        }
    }
}
