import FeedModel
import XMLTree

/// Collects an entry's fields from the elements of one item, whatever
/// format or extension they come from, then settles precedence: a format's
/// own element wins over an extension's (`pubDate` over `dc:date`,
/// `content:encoded` over nothing, `enclosure` before `media:content`).
struct EntryBuilder {
    /// The entry so far: ranked fields hold the best value offered yet.
    var entry = Entry()
    var permalinkGUID: String?
    /// `dc:identifier`: the id only when nothing better (`guid`, `rdf:about`) is there.
    var fallbackID: String?
    private var titleRank = Rank()
    private var summaryRank = Rank()
    private var publishedRank = Rank()
    private var updatedRank = Rank()
    private var linkRank = Rank()
    private var imageRank = Rank()

    /// A title from a lower rank replaces one from a higher (`title` over `media:title`).
    mutating func offerTitle(_ value: Text?, rank: Int) {
        if titleRank.accepts(value != nil, rank: rank) { entry.title = value }
    }
    mutating func offerSummary(_ value: Text?, rank: Int) {
        if summaryRank.accepts(value != nil, rank: rank) { entry.summary = value }
    }
    /// Within a rank the last date wins (as in feedparser, a repeated
    /// `updated` overwrites the one before).
    mutating func offerPublished(_ value: Timestamp?, rank: Int) {
        if publishedRank.accepts(value != nil, rank: rank, laterWins: true) { entry.published = value }
    }
    mutating func offerUpdated(_ value: Timestamp?, rank: Int) {
        if updatedRank.accepts(value != nil, rank: rank, laterWins: true) { entry.updated = value }
    }
    mutating func offerLink(_ value: String?, rank: Int) {
        if linkRank.accepts(value != nil, rank: rank) { entry.link = value }
    }
    mutating func offerImage(_ value: String?, rank: Int) {
        if imageRank.accepts(value != nil, rank: rank) { entry.image = value }
    }

    mutating func addEnclosure(_ enclosure: Enclosure) {
        if !entry.enclosures.contains(where: { $0.url == enclosure.url }) { entry.enclosures.append(enclosure) }
    }

    mutating func addCategory(_ category: Category) {
        if !entry.categories.contains(category) { entry.categories.append(category) }
    }

    /// The entry, moved out of the builder.
    consuming func build() -> Entry {
        if entry.id == nil { entry.id = fallbackID }
        if entry.link == nil { entry.link = permalinkGUID }
        return entry
    }
}

/// The rank of the value a field holds: a lower rank wins; within a rank
/// the first value offered (or, with `laterWins`, the last) stays.
struct Rank {
    private var rank = Int.max

    /// Whether an offered value (`present`: not nil) of `rank` replaces the field's.
    mutating func accepts(_ present: Bool, rank: Int, laterWins: Bool = false) -> Bool {
        guard present, rank < self.rank || (laterWins && rank == self.rank) else { return false }
        self.rank = rank
        return true
    }
}

extension MappingContext {
    /// Elements of the extension namespaces that RSS items and Atom entries
    /// share: Dublin Core, content, Media RSS, iTunes. Returns false for an
    /// element it does not know.
    mutating func mapExtension(
        _ child: DOMElement, namespace: Namespace?, name: String,
        into builder: inout EntryBuilder, label: String
    ) -> Bool {
        switch (namespace, name) {
        case (.dc, "creator"), (.dc, "author"), (.itunes, "author"):
            if let value = text(child) {
                let person = MappingContext.person(fromRSS: value)
                if namespace == .itunes, !builder.entry.authors.isEmpty { return true }
                if !builder.entry.authors.contains(person) { builder.entry.authors.append(person) }
            }
        case (.dc, "contributor"):
            if let value = text(child) { builder.entry.contributors.append(MappingContext.person(fromRSS: value)) }
        case (.dc, "date"):
            let t = date(child, label: label)
            builder.offerPublished(t, rank: 5)
            builder.offerUpdated(t, rank: 5)
        case (.dcterms, "issued"), (.dcterms, "created"), (.dcterms, "available"):
            builder.offerPublished(date(child, label: label), rank: 4)
        case (.dcterms, "modified"):
            builder.offerUpdated(date(child, label: label), rank: 3)
        case (.dc, "subject"):
            if let value = text(child) { builder.addCategory(Category(term: value)) }
        case (.itunes, "keywords"):
            for keyword in (text(child) ?? "").split(separator: ",") {
                let term = String(keyword).trimmingWhitespace
                if !term.isEmpty { builder.addCategory(Category(term: term, scheme: "http://www.itunes.com/")) }
            }
        case (.dc, "rights"), (.dcterms, "rights"):
            if builder.entry.rights == nil { builder.entry.rights = rssText(child, kind: .text) }
        case (.dc, "language"):
            if builder.entry.language == nil { builder.entry.language = text(child) }
        case (.dc, "identifier"):
            if builder.fallbackID == nil { builder.fallbackID = text(child) }
        case (.dc, "title"):
            builder.offerTitle(rssText(child, kind: .text), rank: 1)
        case (.dc, "description"):
            builder.offerSummary(rssText(child, kind: .html), rank: 3)
        case (.itunes, "summary"):
            builder.offerSummary(rssText(child, kind: .text), rank: 4)
        case (.itunes, "link") where child.attribute("rel") == "image":
            builder.offerImage(absolute(child.attribute("href"), at: child), rank: 1)
        case (.content, "encoded"):
            if let value = rssText(child, kind: .html) { builder.entry.content.append(value) }
        case (.xhtml, "body"), (.xhtml, "div"):
            let value = child.innerMarkup.trimmingWhitespace
            if !value.isEmpty { builder.entry.content.append(absolutizingLinks(Text(value, kind: .xhtml), at: child)) }
        case (.media, "content"):
            mapMediaContent(child, into: &builder)
        case (.media, "group"):
            for member in child.children {
                _ = mapExtension(member, namespace: member.namespace, name: member.name, into: &builder, label: label)
            }
        case (.media, "thumbnail"):
            builder.offerImage(absolute(child.attribute("url"), at: child), rank: 2)
        case (.itunes, "image"):
            builder.offerImage(
                absolute(child.attribute("href") ?? child.attribute("url") ?? text(child), at: child), rank: 1)
        case (.media, "title"):
            builder.offerTitle(rssText(child, kind: .text), rank: 2)
        case (.media, "description"):
            let kind: TextKind = child.attribute("type") == "html" ? .html : .text
            builder.offerSummary(rssText(child, kind: kind), rank: 5)
        case (.media, "keywords"):
            for keyword in (text(child) ?? "").split(separator: ",") {
                let term = String(keyword).trimmingWhitespace
                if !term.isEmpty { builder.addCategory(Category(term: term)) }
            }
        case (.media, "category"):
            if let value = text(child) {
                builder.addCategory(
                    Category(term: value, scheme: child.attribute("scheme"), label: child.attribute("label")))
            }
        case (.feedburner, "origLink"):
            // The feed's own `link` (often a FeedBurner redirect) wins, as feedparser has it.
            builder.offerLink(absolute(text(child), at: child), rank: 3)
        default:
            return false
        }
        return true
    }

    private func mapMediaContent(_ child: DOMElement, into builder: inout EntryBuilder) {
        guard let url = absolute(child.attribute("url"), at: child) else { return }
        let type = child.attribute("type")
        let medium = child.attribute("medium")
        if medium == "image" || type?.hasPrefix("image/") == true {
            builder.offerImage(url, rank: 3)
        }
        let length = child.attribute("fileSize").flatMap { Int($0.trimmingWhitespace) }
        builder.addEnclosure(Enclosure(url: url, length: length, type: type ?? medium.map { "\($0)/*" }))
        for member in child.children where member.namespace == .media && member.name == "thumbnail" {
            builder.offerImage(absolute(member.attribute("url"), at: member), rank: 2)
        }
    }
}
