import FeedModel
import XMLTree

/// RSS 0.90-0.94, 2.0 and 1.0 (RDF), and Microsoft's CDF: the channel's
/// metadata and its items.
///
/// In RSS 2.0 items sit inside `channel`; in RSS 1.0 and 0.90 they are
/// siblings of `channel` under `rdf:RDF`; in CDF the root is the `CHANNEL`.
/// Element names are the same apart from the namespace (and, in the wild,
/// their case), so one mapper reads them all.
struct RSSMapper {
    var context: MappingContext

    static func isRSSElement(_ namespace: Namespace?) -> Bool {
        namespace == nil || namespace == .rss10 || namespace == .rss09 || namespace == .rss20
    }

    /// Names of unqualified elements are compared in lower case: feeds write
    /// `<TITLE>` and `<pubdate>` too.
    static func rssName(_ element: DOMElement) -> String { element.lowercasedName }

    mutating func map(_ document: DOMDocument, format: FeedFormat) throws(DOMError) -> ParsedFeed {
        let root = document.root
        let rootIsChannel = Self.rssName(root) == "channel"
        let channel =
            rootIsChannel
            ? root : root.children.first { Self.rssName($0) == "channel" && Self.isRSSElement($0.namespace) }
        var metadata = FeedMetadata()
        if let channel { metadata = mapChannel(channel) }
        if metadata.language == nil { metadata.language = root.attribute("lang", in: .xml) }
        let items: [DOMElement]
        if rootIsChannel {
            items = root.children.filter { Self.rssName($0) == "item" && Self.isRSSElement($0.namespace) }
        } else {
            // Inside the channel (RSS 0.9x/2.0), beside it (RSS 1.0/0.90), or, in broken feeds, both.
            items = try document.select(
                "/*/channel/item | /*/rss:channel/rss:item | /*/rss:item | /*/rss09:item | /*/item"
                    + " | /*/channel/rss:item | /*/rss20:channel/rss20:item")
        }
        var entries: [Entry] = []
        entries.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            entries.append(mapItem(item, label: "entry \(index)"))
        }
        return ParsedFeed(format: format, metadata: metadata, entries: entries, warnings: context.warnings)
    }

    private mutating func mapChannel(_ channel: DOMElement) -> FeedMetadata {
        var feed = FeedMetadata()
        var links: [(Int, String)] = []
        var authors: [(rank: Int, person: Person)] = []
        for child in channel.children {
            let namespace = child.namespace
            if Self.isRSSElement(namespace) {
                let name = Self.rssName(child)
                switch name {
                case "title": feed.title = feed.title ?? context.rssText(child, kind: .text)
                case "link": links.append((0, context.absolute(context.text(child), at: child) ?? ""))
                case "description", "abstract": feed.subtitle = feed.subtitle ?? context.rssText(child, kind: .html)
                case "language": feed.language = feed.language ?? context.text(child)
                case "copyright": feed.rights = feed.rights ?? context.rssText(child, kind: .text)
                case "managingeditor", "author":
                    if let value = context.text(child) { authors.append((0, MappingContext.person(fromRSS: value))) }
                case "webmaster":
                    if let value = context.text(child) { authors.append((3, MappingContext.person(fromRSS: value))) }
                case "pubdate": feed.published = feed.published ?? context.date(child, label: "feed")
                case "lastbuilddate": feed.updated = feed.updated ?? context.date(child, label: "feed")
                case "category":
                    if let term = context.text(child) {
                        feed.categories.append(Category(term: term, scheme: child.attribute("domain")))
                    }
                case "generator": feed.generator = feed.generator ?? context.text(child)
                case "image":
                    if let url = child.children.first(where: { Self.rssName($0) == "url" }).flatMap({ context.text($0) }
                    ) {
                        feed.image = feed.image ?? context.absolute(url, at: child)
                    }
                default: break
                }
                continue
            }
            switch (namespace, child.name) {
            case (.atom, "link"):
                let rel = child.attribute("rel") ?? "alternate"
                if rel == "alternate", let href = context.absolute(child.attribute("href"), at: child) {
                    links.append((1, href))
                }
            case (.atom, "id"): feed.id = feed.id ?? context.text(child)
            case (.atom, "updated"): feed.updated = feed.updated ?? context.date(child, label: "feed")
            case (.atom, "title"): feed.title = feed.title ?? context.textConstruct(child, legacyAtom: false)
            case (.atom, "subtitle"): feed.subtitle = feed.subtitle ?? context.textConstruct(child, legacyAtom: false)
            case (.dc, "title"): feed.title = feed.title ?? context.rssText(child, kind: .text)
            case (.dc, "description"): feed.subtitle = feed.subtitle ?? context.rssText(child, kind: .html)
            case (.dc, "language"): feed.language = feed.language ?? context.text(child)
            case (.dc, "rights"), (.dcterms, "rights"): feed.rights = feed.rights ?? context.rssText(child, kind: .text)
            case (.dc, "creator"), (.dc, "author"):
                if let value = context.text(child) { authors.append((1, MappingContext.person(fromRSS: value))) }
            case (.dc, "publisher"), (.itunes, "author"):
                if let value = context.text(child) { authors.append((2, MappingContext.person(fromRSS: value))) }
            case (.dc, "contributor"):
                if let value = context.text(child) { feed.contributors.append(MappingContext.person(fromRSS: value)) }
            case (.dc, "date"), (.dcterms, "modified"):
                feed.updated = feed.updated ?? context.date(child, label: "feed")
            case (.dcterms, "issued"), (.dcterms, "created"):
                feed.published = feed.published ?? context.date(child, label: "feed")
            case (.dc, "subject"):
                if let term = context.text(child) { feed.categories.append(Category(term: term)) }
            case (.itunes, "category"):
                if let term = child.attribute("text") {
                    feed.categories.append(Category(term: term, scheme: "http://www.itunes.com/"))
                }
            case (.itunes, "keywords"):
                for keyword in (context.text(child) ?? "").split(separator: ",") {
                    let term = String(keyword).trimmingWhitespace
                    if !term.isEmpty { feed.categories.append(Category(term: term, scheme: "http://www.itunes.com/")) }
                }
            case (.itunes, "image"):
                feed.image = feed.image ?? context.absolute(child.attribute("href") ?? context.text(child), at: child)
            case (.itunes, "summary"), (.itunes, "subtitle"):
                feed.subtitle = feed.subtitle ?? context.rssText(child, kind: .text)
            case (.itunes, "owner"):
                let person = Person(
                    name: child.child("name", in: .itunes).flatMap { context.text($0) },
                    email: child.child("email", in: .itunes).flatMap { context.text($0) })
                if !person.isEmpty { authors.append((4, person)) }
            default: break
            }
        }
        if feed.id == nil, let about = channel.attribute("about", in: .rdf) { feed.id = about }
        if let href = channel.attribute("HREF") ?? channel.attribute("href") {
            links.append((2, context.absolute(href, at: channel) ?? ""))
        }
        if feed.updated == nil, let lastModified = channel.attribute("LASTMOD") {
            feed.updated = DateParser.parse(lastModified)
        }
        feed.link = links.filter { !$0.1.isEmpty }.min { $0.0 < $1.0 }?.1
        feed.authors = authors.sorted { $0.rank < $1.rank }.map(\.person).uniqued()
        feed.categories = feed.categories.uniqued(by: \.term)
        return feed
    }

    private mutating func mapItem(_ item: DOMElement, label: String) -> Entry {
        var builder = EntryBuilder()
        for child in item.children {
            let namespace = child.namespace
            guard Self.isRSSElement(namespace) else {
                if !context.mapExtension(child, namespace: namespace, name: child.name, into: &builder, label: label) {
                    mapAtomInRSS(child, namespace: namespace, into: &builder, label: label)
                }
                continue
            }
            switch Self.rssName(child) {
            case "title": builder.offerTitle(context.rssText(child, kind: .text), rank: 0)
            case "link": builder.offerLink(context.absolute(context.text(child), at: child), rank: 1)
            case "description", "abstract":
                builder.offerSummary(context.rssText(child, kind: .html), rank: 0)
            case "summary": builder.offerSummary(context.rssText(child, kind: .html), rank: 1)
            case "body", "fullitem":
                if let value = context.rssText(child, kind: .html) { builder.entry.content.append(value) }
            case "guid":
                guard let guid = context.text(child) else { break }
                builder.entry.id = builder.entry.id ?? guid
                let isPermaLink = child.attribute("isPermaLink")?.trimmingWhitespace.lowercased() != "false"
                if isPermaLink, builder.permalinkGUID == nil, URLReference.hasScheme(guid) {
                    builder.permalinkGUID = guid
                }
            case "pubdate": builder.offerPublished(context.date(child, label: label), rank: 1)
            case "modified", "updated": builder.offerUpdated(context.date(child, label: label), rank: 2)
            case "author":
                if let value = context.text(child) {
                    builder.entry.authors.append(MappingContext.person(fromRSS: value))
                }
            case "category":
                if let term = context.text(child) {
                    builder.addCategory(Category(term: term, scheme: child.attribute("domain")))
                }
            case "tags":
                for tag in (context.text(child) ?? "").split(separator: ",") {
                    let term = String(tag).trimmingWhitespace
                    if !term.isEmpty { builder.addCategory(Category(term: term)) }
                }
            case "enclosure":
                if let url = context.absolute(child.attribute("url"), at: child) {
                    let length = child.attribute("length").flatMap { Int($0.trimmingWhitespace) }
                    builder.addEnclosure(Enclosure(url: url, length: length, type: child.attribute("type")))
                }
            case "comments": builder.entry.comments = context.absolute(context.text(child), at: child)
            default: break
            }
        }
        if builder.entry.id == nil, let about = item.attribute("about", in: .rdf) { builder.entry.id = about }
        if let about = item.attribute("about", in: .rdf), URLReference.hasScheme(about) {
            builder.offerLink(about, rank: 9)
        }
        if let href = item.attribute("HREF") { builder.offerLink(context.absolute(href, at: item), rank: 8) }
        if let lastModified = item.attribute("LASTMOD") {
            builder.offerUpdated(DateParser.parse(lastModified), rank: 8)
        }
        builder.entry.language = builder.entry.language ?? item.language
        return builder.build()
    }

    /// Atom elements some RSS feeds carry in their items.
    private mutating func mapAtomInRSS(
        _ child: DOMElement, namespace: Namespace?, into builder: inout EntryBuilder, label: String
    ) {
        switch (namespace, child.name) {
        case (.atom, "link"):
            let rel = child.attribute("rel") ?? "alternate"
            let href = context.absolute(child.attribute("href"), at: child)
            if rel == "alternate" {
                builder.offerLink(href, rank: 2)
            } else if rel == "enclosure", let href {
                let length = child.attribute("length").flatMap { Int($0.trimmingWhitespace) }
                builder.addEnclosure(Enclosure(url: href, length: length, type: child.attribute("type")))
            }
        case (.atom, "id"): builder.entry.id = builder.entry.id ?? context.text(child)
        case (.atom, "updated"): builder.offerUpdated(context.date(child, label: label), rank: 1)
        case (.atom, "published"): builder.offerPublished(context.date(child, label: label), rank: 2)
        case (.atom, "author"):
            if let person = context.atomPerson(child) { builder.entry.authors.append(person) }
        case (.atom, "summary"): builder.offerSummary(context.textConstruct(child, legacyAtom: false), rank: 2)
        case (.atom, "content"):
            if let value = context.textConstruct(child, legacyAtom: false) { builder.entry.content.append(value) }
        default: break
        }
    }
}

extension Array {
    /// The elements in order, each key kept once (its first occurrence).
    func uniqued<Key: Hashable>(by key: (Element) -> Key) -> [Element] {
        var seen = Set<Key>()
        return filter { seen.insert(key($0)).inserted }
    }
}

extension Array where Element: Hashable {
    func uniqued() -> [Element] { uniqued(by: { $0 }) }
}
