import Basics
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

    /// `skipDays`' day names, Monday first (ISO 8601's numbering, less one).
    static let weekdays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    mutating func map(_ document: DOMDocument, format: FeedFormat) throws(DOMError) -> ParsedFeed {
        let root = document.root
        let rootIsChannel = Self.rssName(root) == "channel"
        let channel =
            rootIsChannel
            ? root : root.children.first { Self.rssName($0) == "channel" && Self.isRSSElement($0.namespace) }
        var metadata = FeedMetadata()
        if let channel { metadata = mapChannel(channel) }
        metadata.language = context.feedLanguage(root: root, declared: metadata.language, rssFirst: true)
        // RSS 1.0 (and 0.90): `image` is a sibling of the channel, which only points at it.
        if metadata.image == nil, !rootIsChannel,
            let image = root.children.first(where: { Self.rssName($0) == "image" && Self.isRSSElement($0.namespace) }),
            let url = image.children.first(where: { Self.rssName($0) == "url" }).flatMap({ context.text($0) })
        {
            metadata.image = context.absolute(url, at: image)
        }
        // Inside the channel (RSS 0.9x/2.0), beside it (RSS 1.0/0.90), or, in
        // broken feeds, both: in document order. Walked, not queried, so every
        // namespace variant `isRSSElement` accepts counts.
        var items: [DOMElement] = []
        func isRSS(_ element: DOMElement, _ name: String) -> Bool {
            Self.isRSSElement(element.namespace) && Self.rssName(element) == name
        }
        if rootIsChannel {
            items = root.children.filter { isRSS($0, "item") }
        } else {
            for child in root.children {
                if isRSS(child, "item") {
                    items.append(child)
                } else if isRSS(child, "channel") {
                    items.append(contentsOf: child.children.filter { isRSS($0, "item") })
                }
            }
        }
        var entries: [Entry] = []
        entries.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            entries.append(mapItem(item, label: "entry \(index)"))
        }
        return ParsedFeed(format: format, metadata: metadata, entries: entries, warnings: context.warnings)
    }

    private mutating func mapChannel(_ channel: DOMElement) -> FeedMetadata {
        var feed = FeedBuilder()
        var links: [(Int, String)] = []
        var emptyDescription = false
        for child in channel.children {
            let namespace = child.namespace
            if Self.isRSSElement(namespace) {
                let name = Self.rssName(child)
                switch name {
                case "title": feed.offerTitle(context.rssText(child, kind: .text), rank: 0)
                case "link": links.append((0, context.absolute(context.text(child), at: child) ?? ""))
                case "description", "abstract":
                    let value = context.rssText(child, kind: .html)
                    if value == nil && name == "description" { emptyDescription = true }
                    feed.offerSubtitle(value, rank: 0)
                case "language": feed.offerLanguage(context.text(child), rank: 0)
                case "copyright": feed.offerRights(context.rssText(child, kind: .text), rank: 0)
                case "managingeditor", "author":
                    feed.addAuthor(context.rssPerson(child), rank: 0)
                case "webmaster":
                    feed.addPublisher(context.rssPerson(child), rank: 2)
                case "pubdate": feed.offerPublished(context.date(child, label: "feed"), rank: 0)
                case "lastbuilddate":
                    let built = context.date(child, label: "feed")
                    feed.offerUpdated(built, rank: 0)
                    feed.metadata.built = feed.metadata.built ?? built
                case "category":
                    if let term = context.text(child) {
                        feed.addCategory(Category(term: term, scheme: child.attribute("domain")))
                    }
                case "generator": feed.metadata.generator = feed.metadata.generator ?? context.text(child)
                case "ttl":
                    // RSS 2.0: a positive whole number of minutes; anything else says nothing.
                    if let minutes = context.text(child).flatMap({ Int($0) }), minutes > 0 {
                        feed.metadata.ttlMinutes = feed.metadata.ttlMinutes ?? minutes
                    }
                case "skiphours":
                    // RSS 2.0: up to 24 `hour` elements, 0–23 GMT (24, which some feeds write for midnight, is 0).
                    for hour in child.children where Self.rssName(hour) == "hour" {
                        if let value = context.text(hour).flatMap({ Int($0) }), (0...24).contains(value) {
                            feed.metadata.skipHours.insert(value % 24)
                        }
                    }
                case "skipdays":
                    // RSS 2.0: up to 7 `day` elements, Monday … Sunday.
                    for day in child.children where Self.rssName(day) == "day" {
                        if let name = context.text(day)?.lowercased(), let index = Self.weekdays.firstIndex(of: name) {
                            feed.metadata.skipDays.insert(index + 1)
                        }
                    }
                case "image":
                    let url = child.children.first { Self.rssName($0) == "url" }.flatMap { context.text($0) }
                    feed.offerImage(context.absolute(url, at: child), rank: 0)
                default: break
                }
                continue
            }
            if context.mapFeedExtension(child, into: &feed) { continue }
            switch (namespace, child.name) {
            case (.atom, "link"):
                let rel = child.attribute("rel") ?? "alternate"
                if rel == "alternate", let href = context.absolute(child.attribute("href"), at: child) {
                    links.append((1, href))
                }
                feed.metadata.selfLink = feed.metadata.selfLink ?? context.selfLink(child)
                if let hub = context.hubLink(child) { feed.metadata.hubs.append(hub) }
            case (.atom, "id"): feed.metadata.id = feed.metadata.id ?? context.text(child)
            case (.atom, "updated"): feed.offerUpdated(context.date(child, label: "feed"), rank: 1)
            case (.atom, "title"): feed.offerTitle(context.textConstruct(child, legacyAtom: false), rank: 1)
            case (.atom, "subtitle"): feed.offerSubtitle(context.textConstruct(child, legacyAtom: false), rank: 1)
            case (.atom, "rights"): feed.offerRights(context.textConstruct(child, legacyAtom: false), rank: 1)
            case (.atom, "author"): feed.addAuthor(context.atomPerson(child), rank: 0)
            case (.atom, "contributor"): feed.addContributor(context.atomPerson(child))
            case (.atom, "logo"):
                feed.metadata.logo = feed.metadata.logo ?? context.absolute(context.text(child), at: child)
            case (.atom, "icon"):
                feed.metadata.icon = feed.metadata.icon ?? context.absolute(context.text(child), at: child)
            default: break
            }
        }
        // `<description/>`: the channel says it has no description; an empty
        // one, unless some other element describes it.
        if emptyDescription { feed.offerSubtitle(Text("", kind: .html), rank: 100) }
        if feed.metadata.id == nil, let about = channel.attribute("about", in: .rdf) { feed.metadata.id = about }
        if let href = channel.attribute("HREF") ?? channel.attribute("href") {
            links.append((2, context.absolute(href, at: channel) ?? ""))
        }
        if let lastModified = channel.attribute("LASTMOD") {
            feed.offerUpdated(DateParser.parse(lastModified), rank: 9)
        }
        feed.metadata.link = links.filter { !$0.1.isEmpty }.min { $0.0 < $1.0 }?.1
        return feed.build()
    }

    private mutating func mapItem(_ item: DOMElement, label: String) -> Entry {
        var builder = EntryBuilder()
        // `description` and `summary` (not RSS, but written) in document order.
        var summaries: [Text] = []
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
            case "description", "summary":
                if let value = context.rssText(child, kind: .html) { summaries.append(value) }
            case "abstract": builder.offerSummary(context.rssText(child, kind: .html), rank: 1)
            case "body", "fullitem":
                if let value = context.rssText(child, kind: .html) { builder.entry.content.append(value) }
            case "guid":
                guard let guid = context.text(child) else { break }
                builder.entry.id = builder.entry.id ?? guid
                // RSS 2.0: a guid is a permalink unless isPermaLink="false"; the
                // reader "may assume" it opens in a browser, so only a web URL is one.
                let isPermaLink = child.attribute("isPermaLink")?.trimmingWhitespace.lowercased() != "false"
                if isPermaLink, builder.permalinkGUID == nil, EntryBuilder.isWebURL(guid) {
                    builder.permalinkGUID = guid
                }
            case "pubdate": builder.offerPublished(context.date(child, label: label), rank: 1)
            case "modified", "updated": builder.offerUpdated(context.date(child, label: label), rank: 2)
            case "author":
                if let person = context.rssPerson(child) { builder.addAuthor(person) }
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
        // The first of `description` and `summary` is the summary; a second,
        // different one is the longer text, so content (feedparser reads both
        // orders the same way).
        if let first = summaries.first {
            builder.offerSummary(first, rank: 0)
            for other in summaries.dropFirst() where other.value != first.value {
                builder.entry.content.append(other)
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
        builder.entry.language = context.entryLanguage(item, declared: builder.entry.language, feed: nil)
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
            if let person = context.atomPerson(child) { builder.addAuthor(person) }
        case (.atom, "contributor"):
            if let person = context.atomPerson(child) { builder.entry.contributors.append(person) }
        case (.atom, "title"): builder.offerTitle(context.textConstruct(child, legacyAtom: false), rank: 1)
        case (.atom, "rights"): builder.offerRights(context.textConstruct(child, legacyAtom: false), rank: 0)
        case (.atom, "category"):
            if let term = (child.attribute("term") ?? context.text(child))?.trimmingWhitespace, !term.isEmpty {
                builder.addCategory(
                    Category(term: term, scheme: child.attribute("scheme"), label: child.attribute("label")))
            }
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
