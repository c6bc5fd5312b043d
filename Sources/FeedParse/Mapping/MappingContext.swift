import FeedModel
import XMLTree

/// What every mapper needs while it copies a document into the model: the
/// document URL (base of relative links) and the warnings it collects.
struct MappingContext {
    let documentURL: String?
    var warnings: [String] = []

    init(documentURL: String?) { self.documentURL = documentURL }

    /// The trimmed text of an element, nil when empty.
    func text(_ element: DOMElement) -> String? { element.trimmedText }

    /// The base URL in scope at an element: the document URL with every
    /// `xml:base` from the root down resolved onto it.
    func base(at element: DOMElement) -> String? {
        var base = documentURL
        for xmlBase in element.baseChain { base = URLReference.resolve(xmlBase, against: base) }
        return base
    }

    /// A URL from the document made absolute against the base in scope.
    func absolute(_ reference: String?, at element: DOMElement) -> String? {
        guard let reference = reference?.trimmingWhitespace, !reference.isEmpty else { return nil }
        if URLReference.hasScheme(reference) { return reference }
        return URLReference.resolve(reference, against: base(at: element))
    }

    /// An element's text as a date; unparseable text is a warning, not a date.
    mutating func date(_ element: DOMElement, label: String) -> Timestamp? {
        guard let instant = element.withTrimmedText({ DateParser.parse(bytes: $0) }) else { return nil }
        if let instant { return instant }
        let text = text(element) ?? ""
        warnings.append("\(label): unparseable date \"\(text.prefix(80))\" in <\(element.name)> (line \(element.line))")
        return nil
    }

    /// HTML or XHTML made safe to read elsewhere: relative links absolute.
    func absolutizingLinks(_ value: Text, at element: DOMElement) -> Text {
        guard value.kind != .text else { return value }
        var result = value
        result.value = HTMLLinks.absolutize(value.value, base: base(at: element))
        return result
    }
}
