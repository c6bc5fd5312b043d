internal import CLibXSLT
import Glibc
import TextOutput

/// The planet page: the timeline written as the planet document
/// (`PlanetDocument`), transformed by a theme (libxslt), and the result
/// written as HTML (`HTMLResult`), whatever the theme's output method.
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
        PageSetup.once()
        var document = TextBuffer(capacity: 1 << 20)
        PlanetDocument.render(input, into: &document)
        let parameters: [(String, String)] =
            [
                ("name", input.metadata.title), ("generated", input.generated.rfc3339),
                ("generated-text", PageDates.venus(input.generated)),
            ] + ["atom", "rss", "json", "opml"].map { ($0, input.links[$0] ?? "") }
        var messages = CLibXSLT_Messages()
        let failure: String? = withUnsafeMutablePointer(to: &messages) { messages in
            transform(document.bytes, theme: theme, parameters: parameters, messages: messages, into: &out)
        }
        if let failure {
            throw Failure(description: "\(theme.name): \(failure): \(messages.summary)")
        }
    }

    /// nil on success, else what failed.
    private static func transform(
        _ bytes: [UInt8], theme: Theme, parameters: [(String, String)],
        messages: UnsafeMutablePointer<CLibXSLT_Messages>, into out: inout TextBuffer
    ) -> String? {
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_HUGE.rawValue)
        guard
            let source = bytes.withUnsafeBufferPointer({ buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    xmlReadMemory($0, Int32(buffer.count), "feedmerge:planet.xml", "utf-8", options)
                }
            })
        else { return "the planet document cannot be read back" }
        defer { xmlFreeDoc(source) }
        guard let context = xsltNewTransformContext(theme.stylesheet, source) else {
            return "the transformation cannot start"
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
        guard quoted == 0 else { return "the theme's parameters cannot be set" }
        guard let result = xsltApplyStylesheetUser(theme.stylesheet, source, nil, nil, nil, context) else {
            return "the theme failed"
        }
        defer { xmlFreeDoc(result) }
        if context.pointee.state == XSLT_STATE_ERROR || context.pointee.state == XSLT_STATE_STOPPED {
            return "the theme failed"
        }
        if theme.writesText {
            var text: UnsafeMutablePointer<xmlChar>?
            var length: Int32 = 0
            guard xsltSaveResultToString(&text, &length, result, theme.stylesheet) == 0 else {
                return "the theme's text output cannot be written"
            }
            if let text {
                out.append(text, count: Int(length))
                CLibXSLT_free(text)
            }
            return nil
        }
        HTMLResult.write(result, into: &out)
        return nil
    }
}
