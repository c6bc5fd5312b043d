internal import CLibXML2
internal import CLibXSLT
import Glibc
import TextOutput

/// The planet page: the timeline written as the planet document
/// (`PlanetDocument`), transformed by a theme (libxslt), and the result
/// written as HTML (`HTMLResult`), whatever the theme's output method.
///
/// Two steps, so that a page is only written once its theme has succeeded,
/// and is then streamed to its file rather than held twice: `render` gives
/// the theme's result (or why it failed), `RenderedPage.write` writes it.
public enum PlanetPage {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// The parameters every theme gets (`<xsl:param name="…"/>`): the
    /// planet's name, the generation time (RFC 3339 and as people read it),
    /// and links to the run's merged feeds and OPML (empty when not written).
    public static let parameterNames = ["name", "generated", "generated-text", "atom", "rss", "json", "opml"]

    /// The page for `input`, appended to `out`.
    public static func render(_ input: PlanetPageInput, theme: Theme, into out: inout TextBuffer) throws(Failure) {
        try render(input, theme: theme).write(into: &out)
    }

    /// The theme's result for `input`, ready to be written.
    public static func render(_ input: PlanetPageInput, theme: Theme) throws(Failure) -> RenderedPage {
        PageSetup.once()
        let parameters: [(String, String)] =
            [
                ("name", input.metadata.title), ("generated", input.generated.rfc3339),
                ("generated-text", PageDates.venus(input.generated)),
            ] + ["atom", "rss", "json", "opml"].map { ($0, input.links[$0] ?? "") }
        var messages = CLibXSLT_Messages()
        let outcome: Result<RenderedPage, Failure> = withUnsafeMutablePointer(to: &messages) { messages in
            // The document's text lives only until libxml2 has read it.
            CLibXSLT_collectThreadMessages(messages)
            defer { CLibXSLT_silenceThread() }
            // The default theme's list made apart is put in its place as the page is written.
            let subscriptions = theme.isBuiltIn ? input.subscriptions : nil
            guard let source = read(input, listsSources: subscriptions == nil) else {
                return .failure(Failure(description: "the planet document cannot be read back"))
            }
            defer { xmlFreeDoc(source) }
            return transform(source, theme: theme, parameters: parameters, messages: messages).map {
                RenderedPage(result: $0, theme: theme, subscriptions: subscriptions)
            }
        }
        switch outcome {
        case .success(let page): return page
        case .failure(let failure):
            let said = messages.length > 0 ? ": \(messages.summary)" : ""
            throw Failure(description: "\(theme.name): \(failure)\(said)")
        }
    }

    /// The planet document, written then read by libxml2.
    private static func read(_ input: PlanetPageInput, listsSources: Bool) -> xmlDocPtr? {
        var document = TextBuffer(capacity: 1 << 20)
        PlanetDocument.render(input, listsSources: listsSources, into: &document)
        return read(document)
    }

    /// A document libxml2 reads from `document`'s bytes.
    static func read(_ document: borrowing TextBuffer) -> xmlDocPtr? {
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_HUGE.rawValue)
        return document.withBytes { bytes in
            guard bytes.count < Int(Int32.max) else { return nil }  // libxml2 takes an int length
            return bytes.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                xmlReadMemory($0, Int32(bytes.count), "feedmerge:planet.xml", "utf-8", options)
            }
        }
    }

    /// The theme's result tree for `source` (the caller frees it).
    static func transform(
        _ source: xmlDocPtr, theme: Theme, parameters: [(String, String)],
        messages: UnsafeMutablePointer<CLibXSLT_Messages>
    ) -> Result<xmlDocPtr, Failure> {
        func failure(_ what: String) -> Result<xmlDocPtr, Failure> { .failure(Failure(description: what)) }
        guard let context = xsltNewTransformContext(theme.stylesheet, source) else {
            return failure("the transformation cannot start")
        }
        defer { xsltFreeTransformContext(context) }
        CLibXSLT_collectTransformMessages(context, messages)
        defer { CLibXSLT_silenceThread() }
        let security = CLibXSLT_securityPrefs()
        defer { xsltFreeSecurityPrefs(security) }
        xsltSetCtxtSecurityPrefs(security, context)
        // Name/value pairs, then NULL; the values are strings, not XPath.
        var strings: [UnsafeMutablePointer<CChar>?] = parameters.flatMap { [strdup($0.0), strdup($0.1)] } + [nil]
        defer { for string in strings { free(string) } }
        let quoted = strings.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) {
                xsltQuoteUserParams(context, $0)
            }
        }
        guard quoted == 0 else { return failure("the theme's parameters cannot be set") }
        var expired: Int32 = 0
        let result = CLibXSLT_applyWithin(theme.stylesheet, source, context, theme.timeLimit, &expired)
        if expired != 0 {
            if let result { xmlFreeDoc(result) }
            return failure("stopped after \(Theme.text(seconds: theme.timeLimit)), its time limit (--theme-timeout)")
        }
        guard let result else { return failure("the theme failed") }
        if context.pointee.state == XSLT_STATE_ERROR || context.pointee.state == XSLT_STATE_STOPPED {
            xmlFreeDoc(result)
            return failure("the theme failed")
        }
        return .success(result)
    }
}

/// A theme's result: a tree (XSLT's), written as HTML or as the theme's
/// `xsl:output` asks, as many times as asked; or the text a template wrote.
/// Made and written on one output's thread.
public final class RenderedPage {
    private let result: xmlDocPtr?
    private let theme: Theme?
    private let text: [UInt8]
    /// The default theme's list of subscriptions, made apart (`PageSubscriptions`).
    private let subscriptions: SortedSubscriptions?

    fileprivate init(result: xmlDocPtr, theme: Theme, subscriptions: SortedSubscriptions?) {
        self.result = result
        self.theme = theme
        self.subscriptions = subscriptions
        text = []
    }

    init(text: [UInt8]) {
        result = nil
        theme = nil
        subscriptions = nil
        self.text = text
    }

    deinit { if let result { xmlFreeDoc(result) } }

    /// Writes the page as HTML (a page served as HTML, `HTMLResult`).
    public func write(into out: inout TextBuffer) {
        if let result {
            HTMLResult.write(result, subscriptions: subscriptions, into: &out)
        } else {
            out.append(bytes: text)
        }
    }

    /// Writes the document as its theme asks (`xsl:output`): Venus's
    /// `atom.xml.xslt` or `opml.xml.xslt` write XML, not a page.
    public func writeAsThemeAsks(into out: inout TextBuffer) {
        guard let result, let theme else { return out.append(bytes: text) }
        // A list made apart is put in only by the HTML writer (a run makes one only for a page written as HTML).
        guard subscriptions == nil else { return write(into: &out) }
        var written: UnsafeMutablePointer<xmlChar>?
        var length: Int32 = 0
        defer { CLibXML2_free(written) }
        guard xsltSaveResultToString(&written, &length, result, theme.stylesheet) == 0, let written else { return }
        out.append(bytes: Array(UnsafeBufferPointer(start: written, count: Int(length))))
    }
}
