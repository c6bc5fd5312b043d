import Basics
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
        // An Atom Entry Document (RFC 4287, 2): one entry, no feed metadata.
        if root.name == "entry" {
            let entry = mapEntry(root, label: "entry 0")
            var metadata = FeedMetadata()
            metadata.language = context.feedLanguage(root: root, declared: nil)
            return ParsedFeed(format: format, metadata: metadata, entries: [entry], warnings: context.warnings)
        }
        var feed = FeedBuilder()
        var entries: [Entry] = []
        var links = LinkChoice()
        for child in root.children {
            let namespace = child.namespace
            guard isAtom(namespace) else {
                _ = context.mapFeedExtension(child, into: &feed)
                continue
            }
            switch child.name {
            // `item`: what some pre-1.0 drafts (and confused feeds) call an entry.
            case "entry", "item": entries.append(mapEntry(child, label: "entry \(entries.count)"))
            case "title": feed.offerTitle(context.textConstruct(child, legacyAtom: legacy), rank: 0)
            case "subtitle", "tagline":
                feed.offerSubtitle(context.textConstruct(child, legacyAtom: legacy), rank: 0)
            case "info":  // Atom 0.3: a human-readable explanation of the format, not of the feed
                break
            case "rights", "copyright":
                feed.offerRights(context.textConstruct(child, legacyAtom: legacy), rank: 0)
            case "id": feed.metadata.id = feed.metadata.id ?? atomID(child)
            case "updated", "modified": feed.offerUpdated(context.date(child, label: "feed"), rank: 0)
            case "published", "issued": feed.offerPublished(context.date(child, label: "feed"), rank: 0)
            case "icon": feed.metadata.icon = feed.metadata.icon ?? context.absolute(context.text(child), at: child)
            case "logo": feed.metadata.logo = feed.metadata.logo ?? context.absolute(context.text(child), at: child)
            case "generator":
                feed.metadata.generator = feed.metadata.generator ?? context.text(child) ?? child.attribute("uri")
            case "author": feed.addAuthor(context.atomPerson(child), rank: 0)
            case "contributor": feed.addContributor(context.atomPerson(child))
            case "category":
                if let category = category(child) { feed.metadata.categories.append(category) }
            case "link":
                links.offer(child, context: context)
                feed.metadata.selfLink = feed.metadata.selfLink ?? context.selfLink(child)
                if let hub = context.hubLink(child) { feed.metadata.hubs.append(hub) }
            default:
                break
            }
        }
        var metadata = feed.build()
        metadata.link = links.best
        metadata.language = context.feedLanguage(root: root, declared: metadata.language)
        return ParsedFeed(format: format, metadata: metadata, entries: entries, warnings: context.warnings)
    }

    /// `atom:id`, as written. RFC 4287 wants an absolute IRI, but resolving a
    /// relative one would make the id depend on the address the feed was
    /// fetched from (and change the entry's identity in the state when the
    /// feed moves): an id is a name, kept as the feed gave it.
    private func atomID(_ element: DOMElement) -> String? { context.text(element) }

    private func category(_ element: DOMElement) -> Category? {
        guard let term = (element.attribute("term") ?? context.text(element))?.trimmingWhitespace, !term.isEmpty
        else { return nil }
        return Category(term: term, scheme: element.attribute("scheme"), label: element.attribute("label"))
    }

    private mutating func mapEntry(_ element: DOMElement, label: String) -> Entry {
        var builder = EntryBuilder()
        var links = LinkChoice()
        var sourceAuthors: [Person] = []
        for child in element.children {
            let namespace = child.namespace
            guard isAtom(namespace) else {
                _ = context.mapExtension(child, namespace: namespace, name: child.name, into: &builder, label: label)
                continue
            }
            switch child.name {
            case "id": builder.entry.id = builder.entry.id ?? atomID(child)
            case "title": builder.offerTitle(context.textConstruct(child, legacyAtom: legacy), rank: 0)
            case "summary": builder.offerSummary(context.textConstruct(child, legacyAtom: legacy), rank: 0)
            case "description":
                // Not Atom: RSS's name for the summary, which feeds mixing the two write.
                builder.offerSummary(context.rssText(child, kind: .html), rank: 2)
            case "content":
                if let value = context.textConstruct(child, legacyAtom: legacy) {
                    builder.entry.content.append(value)
                } else if let source = context.absolute(child.attribute("src"), at: child) {
                    // RFC 4287 4.1.3.2: out-of-line content; its address is where the entry is read.
                    builder.offerLink(source, rank: 8)
                }
            case "published", "issued": builder.offerPublished(context.date(child, label: label), rank: 1)
            case "created": builder.offerPublished(context.date(child, label: label), rank: 2)
            case "updated", "modified": builder.offerUpdated(context.date(child, label: label), rank: 1)
            case "rights", "copyright":
                builder.offerRights(context.textConstruct(child, legacyAtom: legacy), rank: 0)
            case "author":
                if let person = context.atomPerson(child) { builder.addAuthor(person) }
            case "contributor":
                if let person = context.atomPerson(child) { builder.entry.contributors.append(person) }
            case "category":
                if let category = category(child) { builder.addCategory(category) }
            case "link":
                let rel = child.attribute("rel")?.trimmingWhitespace.lowercased() ?? "alternate"
                if rel == "enclosure" || rel == "http://www.iana.org/assignments/relation/enclosure",
                    let href = context.absolute(child.attribute("href"), at: child)
                {
                    let length = child.attribute("length").flatMap { Int($0.trimmingWhitespace) }
                    builder.addEnclosure(Enclosure(url: href, length: length, type: child.attribute("type")))
                } else {
                    links.offer(child, context: context)
                }
            case "source":
                // RFC 4287 4.2.11: the metadata of the feed the entry was copied
                // from. Only its authors apply to the entry, and only when the
                // entry names none (4.2.1); the rest describes the other feed.
                for member in child.children where isAtom(member.namespace) && member.name == "author" {
                    if let person = context.atomPerson(member) { sourceAuthors.append(person) }
                }
            default:
                break
            }
        }
        if let link = links.best { builder.offerLink(link, rank: 1) }
        if builder.entry.authors.isEmpty { builder.entry.authors = sourceAuthors }
        // An entry without an alternate link whose id is a web URL: that URL.
        if let id = builder.entry.id, EntryBuilder.isWebURL(id) { builder.linkFromID = id }
        builder.entry.language = context.entryLanguage(element, declared: builder.entry.language, feed: nil)
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
