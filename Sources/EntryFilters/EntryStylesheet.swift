internal import CLibXML2
internal import CLibXSLT
import Foundation
import Synchronization

/// A Venus XSLT filter, compiled once: it transforms each entry's
/// normalized Atom document (`NormalizedEntry`); an empty result drops
/// the entry. Like a page theme, it is compiled with no network and no
/// file outside its own folder (`CLibXSLT_compile`), may read no file,
/// write none and use no network while it runs (libxslt's security
/// preferences), and is stopped at its time limit; a filter stopped once
/// is not run again (each later entry would cost the same time).
final class EntryStylesheet: @unchecked Sendable {
    // Unchecked: the compiled stylesheet is only read; libxslt lets one
    // compiled stylesheet serve transformations on several threads.
    private let stylesheet: xsltStylesheetPtr
    let path: String
    /// How long one entry's transformation may run (`--theme-timeout`).
    let timeLimit: Double
    /// Whether a transformation ran out of time: then the filter is not run again.
    private let stopped = Atomic<Bool>(false)

    init(path: String, timeLimit: Double) throws(EntryFilterError) {
        self.path = path
        self.timeLimit = timeLimit
        guard let data = FileManager.default.contents(atPath: path) else {
            throw EntryFilterError("\(path): no such filter file")
        }
        Self.setup()
        let bytes = [UInt8](data)
        let url = URL(fileURLWithPath: path).absoluteString
        var messages = CLibXSLT_Messages()
        let compiled: xsltStylesheetPtr? = Self.compiling.withLock {
            bytes.withUnsafeBufferPointer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    CLibXSLT_compile($0, Int32(buffer.count), url, &messages)
                }
            }
        }
        guard let compiled else {
            throw EntryFilterError("\(path): not a usable XSLT stylesheet: \(messages.summary)")
        }
        stylesheet = compiled
    }

    deinit { xsltFreeStylesheet(stylesheet) }

    /// What the filter made of an entry document.
    enum Result {
        /// Its serialized result.
        case entry(String)
        /// It gave nothing: the entry is dropped (Venus: no output, no entry).
        case dropped
        /// It failed (an XSLT error): the entry stays as it was.
        case failed
        /// It ran out of time, on this entry (`now`) or before: the entry stays as it was.
        case stopped(now: Bool)
    }

    func transform(_ document: String) -> Result {
        guard !stopped.load(ordering: .relaxed) else { return .stopped(now: false) }
        let bytes = Array(document.utf8)
        let options = Int32(XML_PARSE_NONET.rawValue)
        guard
            let source = bytes.withUnsafeBufferPointer({ buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    xmlReadMemory($0, Int32(buffer.count), "feedmerge:entry.xml", "utf-8", options)
                }
            })
        else { return .failed }
        defer { xmlFreeDoc(source) }
        guard let context = xsltNewTransformContext(stylesheet, source) else { return .failed }
        defer { xsltFreeTransformContext(context) }
        let security = CLibXSLT_securityPrefs()
        defer { xsltFreeSecurityPrefs(security) }
        xsltSetCtxtSecurityPrefs(security, context)
        CLibXSLT_silenceThread()
        var expired: Int32 = 0
        let applied = CLibXSLT_applyWithin(stylesheet, source, context, timeLimit, &expired)
        if expired != 0 {
            if let applied { xmlFreeDoc(applied) }
            stopped.store(true, ordering: .relaxed)
            return .stopped(now: true)
        }
        // libxslt gives no result after an error (h1title.xslt adds an attribute after children).
        guard let result = applied else {
            return context.pointee.state == XSLT_STATE_STOPPED ? .dropped : .failed
        }
        defer { xmlFreeDoc(result) }
        guard context.pointee.state == XSLT_STATE_OK else { return .failed }
        guard xmlDocGetRootElement(result) != nil else { return .dropped }
        var text: UnsafeMutablePointer<xmlChar>?
        var length: Int32 = 0
        defer { CLibXML2_free(text) }
        guard xsltSaveResultToString(&text, &length, result, stylesheet) == 0, let text else { return .failed }
        return .entry(String(decoding: UnsafeBufferPointer(start: text, count: Int(length)), as: UTF8.self))
    }

    /// Whether `expression` compiles as XPath 1.0.
    static func compiles(_ expression: String) -> Bool {
        setup()
        guard let compiled = xmlXPathCompile(expression) else { return false }
        xmlXPathFreeCompExpr(compiled)
        return true
    }

    /// Whether an XPath expression holds (is true, or selects something) of an
    /// entry document; `atom:`, `xhtml:` and `planet:` are bound.
    static func holds(_ expression: String, in document: String) throws(EntryFilterError) -> Bool {
        setup()
        let bytes = Array(document.utf8)
        guard
            let source = bytes.withUnsafeBufferPointer({ buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    xmlReadMemory(
                        $0, Int32(buffer.count), "feedmerge:entry.xml", "utf-8", Int32(XML_PARSE_NONET.rawValue))
                }
            })
        else { return false }
        defer { xmlFreeDoc(source) }
        guard let context = xmlXPathNewContext(source) else { return false }
        defer { xmlXPathFreeContext(context) }
        xmlXPathRegisterNs(context, "atom", "http://www.w3.org/2005/Atom")
        xmlXPathRegisterNs(context, "xhtml", "http://www.w3.org/1999/xhtml")
        xmlXPathRegisterNs(context, "planet", "http://planet.intertwingly.net/")
        guard let object = xmlXPathEvalExpression(expression, context) else {
            throw EntryFilterError("xpath_sifter: not an XPath expression: \(expression)")
        }
        defer { xmlXPathFreeObject(object) }
        return xmlXPathCastToBoolean(object) != 0
    }

    /// Held while a stylesheet compiles (libxslt's compile errors go to a process-wide handler).
    private static let compiling = NSLock()

    private static let done: Void = {
        // libxml2's entity loader refuses every load before anything is compiled.
        CLibXML2_initialize()
        exsltRegisterAll()
    }()

    private static func setup() { _ = done }
}

extension CLibXSLT_Messages {
    /// The collected messages on one line (`CLibXSLT_summary`).
    var summary: String {
        var copy = self
        let line = String(cString: CLibXSLT_summary(&copy))
        return line.isEmpty ? "no reason given" : line
    }
}
