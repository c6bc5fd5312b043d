import FeedModel
import XMLTree

/// Atom 1.0 (RFC 4287) and Atom 0.3: the feed's metadata and its entries.
///
/// Atom 0.3 names differ (`tagline`, `copyright`, `issued`, `modified`,
/// `url`, `mode`); both namespaces are read by the same code.
struct AtomMapper {
    var context: MappingContext

    private func isAtom(_ namespace: Namespace?) -> Bool {
        namespace == .atom || namespace == .atom03 || namespace == nil
    }

    /// Atom 0.3 rules for text constructs.
    private var legacy = false

    init(context: MappingContext) { self.context = context }

    mutating func map(_ document: DOMDocument, format: FeedFormat) -> ParsedFeed {
        legacy = format == .atom03
        let root = document.root
        var metadata = FeedMetadata()
        var entries: [Entry] = []
        var links = LinkChoice()
        for child in root.children {
            let namespace = child.namespace
            guard isAtom(namespace) else {
                mapFeedExtension(child, namespace: namespace, into: &metadata)
                continue
            }
            switch child.name {
            case "entry": entries.append(mapEntry(child, label: "entry \(entries.count)"))
            case "title": metadata.title = metadata.title ?? context.textConstruct(child, legacyAtom: legacy)
            case "subtitle", "tagline":
                metadata.subtitle = metadata.subtitle ?? context.textConstruct(child, legacyAtom: legacy)
            case "rights", "copyright":
                metadata.rights = metadata.rights ?? context.textConstruct(child, legacyAtom: legacy)
            case "id": metadata.id = metadata.id ?? context.text(child)
            case "updated", "modified": metadata.updated = metadata.updated ?? context.date(child, label: "feed")
            case "published", "issued": metadata.published = metadata.published ?? context.date(child, label: "feed")
            case "icon": metadata.icon = metadata.icon ?? context.absolute(context.text(child), at: child)
            case "logo": metadata.logo = metadata.logo ?? context.absolute(context.text(child), at: child)
            case "generator":
                metadata.generator = metadata.generator ?? context.text(child) ?? child.attribute("uri")
            case "author":
                if let person = context.atomPerson(child) { metadata.authors.append(person) }
            case "contributor":
                if let person = context.atomPerson(child) { metadata.contributors.append(person) }
            case "category":
                if let category = category(child) { metadata.categories.append(category) }
            case "link":
                links.offer(child, context: context)
            default:
                break
            }
        }
        metadata.link = links.best
        metadata.language = root.attribute("lang", in: .xml) ?? metadata.language
        return ParsedFeed(format: format, metadata: metadata, entries: entries, warnings: context.warnings)
    }

    private mutating func mapFeedExtension(
        _ child: DOMElement, namespace: Namespace?, into metadata: inout FeedMetadata
    ) {
        switch (namespace, child.name) {
        case (.dc, "language"): metadata.language = metadata.language ?? context.text(child)
        case (.dc, "rights"): metadata.rights = metadata.rights ?? context.rssText(child, kind: .text)
        case (.dc, "subject"):
            if let term = context.text(child) { metadata.categories.append(Category(term: term)) }
        case (.itunes, "image"):
            metadata.image = metadata.image ?? context.absolute(child.attribute("href"), at: child)
        default: break
        }
    }

    private func category(_ element: DOMElement) -> Category? {
        guard let term = (element.attribute("term") ?? context.text(element))?.trimmingWhitespace, !term.isEmpty
        else { return nil }
        return Category(term: term, scheme: element.attribute("scheme"), label: element.attribute("label"))
    }

    private mutating func mapEntry(_ element: DOMElement, label: String) -> Entry {
        var builder = EntryBuilder()
        var links = LinkChoice()
        for child in element.children {
            let namespace = child.namespace
            guard isAtom(namespace) else {
                _ = context.mapExtension(child, namespace: namespace, name: child.name, into: &builder, label: label)
                continue
            }
            switch child.name {
            case "id": builder.entry.id = builder.entry.id ?? context.text(child)
            case "title": builder.offerTitle(context.textConstruct(child, legacyAtom: legacy), rank: 0)
            case "summary": builder.offerSummary(context.textConstruct(child, legacyAtom: legacy), rank: 0)
            case "content":
                if let value = context.textConstruct(child, legacyAtom: legacy) {
                    builder.entry.content.append(value)
                } else if let source = context.absolute(child.attribute("src"), at: child) {
                    builder.offerLink(source, rank: 8)
                }
            case "published", "issued": builder.offerPublished(context.date(child, label: label), rank: 1)
            case "created": builder.offerPublished(context.date(child, label: label), rank: 2)
            case "updated", "modified": builder.offerUpdated(context.date(child, label: label), rank: 1)
            case "rights", "copyright":
                builder.entry.rights = builder.entry.rights ?? context.textConstruct(child, legacyAtom: legacy)
            case "author":
                if let person = context.atomPerson(child) { builder.entry.authors.append(person) }
            case "contributor":
                if let person = context.atomPerson(child) { builder.entry.contributors.append(person) }
            case "category":
                if let category = category(child) { builder.addCategory(category) }
            case "link":
                let rel = child.attribute("rel")?.trimmingWhitespace ?? "alternate"
                if rel == "enclosure", let href = context.absolute(child.attribute("href"), at: child) {
                    let length = child.attribute("length").flatMap { Int($0.trimmingWhitespace) }
                    builder.addEnclosure(Enclosure(url: href, length: length, type: child.attribute("type")))
                } else {
                    links.offer(child, context: context)
                }
            default:
                break
            }
        }
        if let link = links.best { builder.offerLink(link, rank: 1) }
        builder.entry.language = element.language
        return builder.build()
    }
}

/// Picks the alternate link among Atom `link` elements: `rel="alternate"`
/// (or no rel) first, an HTML type before other types, document order last.
struct LinkChoice {
    private var candidates: [(rank: Int, url: String)] = []

    mutating func offer(_ element: DOMElement, context: MappingContext) {
        let rel = element.attribute("rel").map { $0.trimmingWhitespace.lowercased() } ?? "alternate"
        guard rel == "alternate" || rel == "http://www.iana.org/assignments/relation/alternate" else { return }
        let type = element.attribute("type")?.lowercased() ?? "text/html"
        let rank = type.hasSuffix("html") || type.hasPrefix("text/html") || type.hasPrefix("application/xhtml") ? 0 : 1
        // An empty href is a reference to the base itself (RFC 3986, 5.2).
        let reference = element.attribute("href") ?? context.text(element)
        guard
            let href = reference?.isEmpty == true ? context.base(at: element) : context.absolute(reference, at: element)
        else { return }
        candidates.append((rank, href))
    }

    var best: String? { candidates.min { $0.rank < $1.rank }?.url }
}
