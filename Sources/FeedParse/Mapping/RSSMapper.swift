import FeedModel
import XMLTree

/// RSS 0.90-0.94, 2.0 and 1.0 (RDF): the channel's metadata and its items.
///
/// In RSS 2.0 items sit inside `channel`; in RSS 1.0 and 0.90 they are
/// siblings of `channel` under `rdf:RDF`. Element names are the same apart
/// from the namespace, so one mapper reads them all.
struct RSSMapper {
    var context: MappingContext

    func isRSSElement(_ namespace: Namespace?) -> Bool {
        namespace == nil || namespace == .rss10 || namespace == .rss09
    }

    mutating func map(_ document: DOMDocument, format: FeedFormat) throws(DOMError) -> ParsedFeed {
        let root = document.root
        let channel =
            root.name == "channel" ? root : root.children.first { $0.name == "channel" && isRSSElement($0.namespace) }
        var metadata = FeedMetadata()
        if let channel { metadata = mapChannel(channel) }
        if metadata.language == nil { metadata.language = root.attribute("lang", in: .xml) }
        // Items: inside the channel (RSS 0.9x/2.0), beside it (RSS 1.0/0.90), or, in broken feeds, both.
        let items = try document.select(
            "/*/channel/item | /*/rss:channel/rss:item | /*/rss:item | /*/rss09:item | /*/item | /*/channel/rss:item")
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
        for child in channel.children {
            let namespace = child.namespace
            let name = child.name
            if isRSSElement(namespace) {
                switch name {
                case "title": feed.title = feed.title ?? context.rssText(child, kind: .text)
                case "link": links.append((0, context.absolute(context.text(child), at: child) ?? ""))
                case "description": feed.subtitle = feed.subtitle ?? context.rssText(child, kind: .html)
                case "language": feed.language = feed.language ?? context.text(child)
                case "copyright": feed.rights = feed.rights ?? context.rssText(child, kind: .text)
                case "managingEditor", "webMaster":
                    if name == "managingEditor" || feed.authors.isEmpty, let value = context.text(child) {
                        feed.authors.insert(MappingContext.person(fromRSS: value), at: name == "managingEditor" ? 0 : feed.authors.count)
                    }
                case "pubDate": feed.published = feed.published ?? context.date(child, label: "feed")
                case "lastBuildDate": feed.updated = feed.updated ?? context.date(child, label: "feed")
                case "category":
                    if let term = context.text(child) {
                        feed.categories.append(Category(term: term, scheme: child.attribute("domain")))
                    }
                case "generator": feed.generator = feed.generator ?? context.text(child)
                case "image":
                    if let url = child.child("url", in: namespace).flatMap({ context.text($0) }) {
                        feed.image = feed.image ?? context.absolute(url, at: child)
                    }
                default: break
                }
                continue
            }
            switch (namespace, name) {
            case (.atom, "link"):
                let rel = child.attribute("rel") ?? "alternate"
                if rel == "alternate", let href = context.absolute(child.attribute("href"), at: child) {
                    links.append((1, href))
                }
            case (.atom, "id"): feed.id = feed.id ?? context.text(child)
            case (.atom, "updated"): feed.updated = feed.updated ?? context.date(child, label: "feed")
            case (.atom, "title"): feed.title = feed.title ?? context.textConstruct(child)
            case (.atom, "subtitle"): feed.subtitle = feed.subtitle ?? context.textConstruct(child)
            case (.dc, "title"): feed.title = feed.title ?? context.rssText(child, kind: .text)
            case (.dc, "description"): feed.subtitle = feed.subtitle ?? context.rssText(child, kind: .html)
            case (.dc, "language"): feed.language = feed.language ?? context.text(child)
            case (.dc, "rights"), (.dcterms, "rights"): feed.rights = feed.rights ?? context.rssText(child, kind: .text)
            case (.dc, "creator"), (.dc, "publisher"), (.itunes, "author"):
                if let value = context.text(child), feed.authors.isEmpty || name == "creator" {
                    feed.authors.append(Person(name: value))
                }
            case (.dc, "contributor"):
                if let value = context.text(child) { feed.contributors.append(Person(name: value)) }
            case (.dc, "date"):
                let t = context.date(child, label: "feed")
                feed.updated = feed.updated ?? t
            case (.dcterms, "modified"): feed.updated = feed.updated ?? context.date(child, label: "feed")
            case (.dc, "subject"):
                if let term = context.text(child) { feed.categories.append(Category(term: term)) }
            case (.itunes, "category"):
                if let term = child.attribute("text") { feed.categories.append(Category(term: term, scheme: "http://www.itunes.com/")) }
            case (.itunes, "keywords"):
                for keyword in (context.text(child) ?? "").split(separator: ",") where !keyword.isEmpty {
                    feed.categories.append(Category(term: String(keyword).trimmingWhitespace, scheme: "http://www.itunes.com/"))
                }
            case (.itunes, "image"):
                feed.image = feed.image ?? context.absolute(child.attribute("href") ?? context.text(child), at: child)
            case (.itunes, "summary"), (.itunes, "subtitle"):
                feed.subtitle = feed.subtitle ?? context.rssText(child, kind: .text)
            case (.itunes, "owner"):
                let person = Person(
                    name: child.child("name", in: .itunes).flatMap { context.text($0) },
                    email: child.child("email", in: .itunes).flatMap { context.text($0) })
                if !person.isEmpty && feed.authors.isEmpty { feed.authors.append(person) }
            case (.rdf, _): break
            default: break
            }
        }
        if feed.id == nil, let about = channel.attribute("about", in: .rdf) { feed.id = about }
        feed.link = links.filter { !$0.1.isEmpty }.min { $0.0 < $1.0 }?.1
        return feed
    }

    private mutating func mapItem(_ item: DOMElement, label: String) -> Entry {
        var builder = EntryBuilder()
        for child in item.children {
            let namespace = child.namespace
            let name = child.name
            if isRSSElement(namespace) {
                switch name {
                case "title": builder.entry.title = builder.entry.title ?? context.rssText(child, kind: .text)
                case "link": builder.offerLink(context.absolute(context.text(child), at: child), rank: 1)
                case "description", "summary":
                    builder.entry.summary = builder.entry.summary ?? context.rssText(child, kind: .html)
                case "guid":
                    guard let guid = context.text(child) else { break }
                    builder.entry.id = builder.entry.id ?? guid
                    let isPermaLink = child.attribute("isPermaLink")?.trimmingWhitespace.lowercased() != "false"
                    if isPermaLink, builder.permalinkGUID == nil {
                        builder.permalinkGUID = URLReference.hasScheme(guid) ? guid : nil
                    }
                case "pubDate": builder.offerPublished(context.date(child, label: label), rank: 1)
                case "author":
                    if let value = context.text(child) { builder.entry.authors.append(MappingContext.person(fromRSS: value)) }
                case "category":
                    if let term = context.text(child) {
                        builder.addCategory(Category(term: term, scheme: child.attribute("domain")))
                    }
                case "enclosure":
                    if let url = context.absolute(child.attribute("url"), at: child) {
                        let length = child.attribute("length").flatMap { Int($0.trimmingWhitespace) }
                        builder.addEnclosure(Enclosure(url: url, length: length, type: child.attribute("type")))
                    }
                case "comments": builder.entry.comments = context.absolute(context.text(child), at: child)
                default: break
                }
                continue
            }
            if context.mapExtension(child, namespace: namespace, name: name, into: &builder, label: label) { continue }
            switch (namespace, name) {
            case (.atom, "link"):
                let rel = child.attribute("rel") ?? "alternate"
                let href = context.absolute(child.attribute("href"), at: child)
                if rel == "alternate" {
                    builder.offerLink(href, rank: 2)
                } else if rel == "enclosure", let href {
                    builder.addEnclosure(Enclosure(url: href, length: child.attribute("length").flatMap { Int($0) }, type: child.attribute("type")))
                }
            case (.atom, "id"): builder.entry.id = builder.entry.id ?? context.text(child)
            case (.atom, "updated"): builder.offerUpdated(context.date(child, label: label), rank: 1)
            case (.atom, "published"): builder.offerPublished(context.date(child, label: label), rank: 2)
            case (.atom, "author"):
                if let person = context.atomPerson(child) { builder.entry.authors.append(person) }
            case (.atom, "summary"): builder.entry.summary = builder.entry.summary ?? context.textConstruct(child)
            case (.atom, "content"): if let value = context.textConstruct(child) { builder.entry.content.append(value) }
            default: break
            }
        }
        if builder.entry.id == nil, let about = item.attribute("about", in: .rdf) { builder.entry.id = about }
        if builder.alternateLinks.isEmpty, let about = item.attribute("about", in: .rdf), URLReference.hasScheme(about) {
            builder.offerLink(about, rank: 9)
        }
        builder.entry.language = builder.entry.language ?? item.language
        return builder.build()
    }
}
