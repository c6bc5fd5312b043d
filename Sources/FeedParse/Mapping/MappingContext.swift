import Basics
import FeedModel
import XMLTree

/// What every mapper needs while it copies a document into the model: the
/// document URL (base of relative links) and the warnings it collects.
struct MappingContext {
    let documentURL: String?
    /// The document URL as a base: nil when opaque (`javascript:`, `mailto:`).
    /// Worked out once: `base(at:)` runs for every link of the document.
    private let documentBase: String?
    var warnings: [String] = []

    init(documentURL: String?) {
        self.documentURL = documentURL
        documentBase = documentURL.flatMap { URLReference.isOpaque($0) ? nil : $0 }
    }

    /// The trimmed text of an element, nil when empty.
    func text(_ element: DOMElement) -> String? { element.trimmedText }

    /// The base URL in scope at an element: the document URL with every
    /// `xml:base` from the root down resolved onto it.
    /// Microsoft's CDF puts the same on its root: `<CHANNEL BASE="...">`.
    /// A base that cannot be one (an opaque `javascript:` or `mailto:` URL)
    /// is skipped: the base in scope before it still holds.
    func base(at element: DOMElement) -> String? {
        var base = documentBase
        let root = element.document.root
        // CDF's `<CHANNEL BASE=...>` root (the name's length first: no lower-casing for `rss` or `feed`).
        if root.namespace == nil, root.name.utf8.count == 7, root.lowercasedName == "channel",
            let cdfBase = root.attribute("BASE")
        {
            base = Self.rebase(base, on: cdfBase)
        }
        for xmlBase in element.baseChain { base = Self.rebase(base, on: xmlBase) }
        return base
    }

    /// `base` with one more base declaration resolved onto it, unless the
    /// result cannot serve as a base.
    private static func rebase(_ base: String?, on declared: String) -> String? {
        let next = URLReference.resolve(declared, against: base)
        return URLReference.isOpaque(next) ? base : next
    }

    /// A URL from the document made absolute against the base in scope.
    /// An Atom `link rel="self"` element's address, absolute; nil for another link.
    func selfLink(_ element: DOMElement) -> String? {
        let rel = element.attribute("rel")?.trimmingWhitespace.lowercased()
        guard rel == "self" || rel == "http://www.iana.org/assignments/relation/self" else { return nil }
        return absolute(element.attribute("href"), at: element)
    }

    /// An Atom `link rel="hub"` element's address (a WebSub hub), absolute; nil for another link.
    func hubLink(_ element: DOMElement) -> String? {
        guard element.attribute("rel")?.trimmingWhitespace.lowercased() == "hub" else { return nil }
        return absolute(element.attribute("href"), at: element)
    }

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
        warnings.append(
            "\(label): \(ParseWarning.unreadableDate) \"\(text.prefix(80))\" in <\(element.name)> (line \(element.line))"
        )
        return nil
    }

    /// HTML or XHTML made safe to read elsewhere: relative links absolute.
    /// Inline XHTML is the markup inside its `div`, so an `xml:base` on that
    /// `div` counts too; those on elements inside stay in the markup and
    /// `HTMLLinks` applies them.
    func absolutizingLinks(_ value: Text, at element: DOMElement) -> Text {
        guard value.kind != .text else { return value }
        var scope = element
        if value.kind == .xhtml {
            let children = Array(element.children.prefix(2))
            if children.count == 1, children[0].name == "div" { scope = children[0] }
        }
        var result = value
        result.value = HTMLLinks.absolutize(value.value, base: base(at: scope))
        return result
    }

    /// A feed's language: the `xml:lang` on its root element, else what one
    /// of its elements declared (RSS `language`, `dc:language`).
    /// - Parameter rssFirst: RSS, where the channel's `language` element is
    ///   the feed's own statement and wins over an inherited `xml:lang`.
    func feedLanguage(root: DOMElement, declared: String?, rssFirst: Bool = false) -> String? {
        let declared = declared.flatMap(DOMElement.languageTag)
        let inScope = root.attribute("lang", in: .xml).flatMap(DOMElement.languageTag)
        return rssFirst ? declared ?? inScope : inScope ?? declared
    }

    /// An entry's language: what it declared itself (`dc:language`), else the
    /// `xml:lang` in scope (the entry's, else an ancestor's up to the root),
    /// else the feed's language.
    func entryLanguage(_ element: DOMElement, declared: String?, feed: String?) -> String? {
        declared.flatMap(DOMElement.languageTag) ?? element.language ?? feed
    }
}
