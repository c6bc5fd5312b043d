import Basics
import FeedModel
import XMLTree

/// Collects an entry's fields from the elements of one item, whatever
/// format or extension they come from, then settles precedence: a format's
/// own element wins over an extension's (`pubDate` over `dc:date`,
/// `content:encoded` over nothing, `enclosure` before `media:content`).
struct EntryBuilder {
    /// The entry so far: ranked fields hold the best value offered yet.
    var entry = Entry()
    /// A `guid` that is a permalink (RSS 2.0: `isPermaLink` not `false`, and an http(s) URL).
    var permalinkGUID: String?
    /// An Atom `id` (or a `guid` read the same way) that is an http(s) URL:
    /// the link of an entry that has none.
    var linkFromID: String?
    /// `dc:identifier`: the id only when nothing better (`guid`, `rdf:about`) is there.
    var fallbackID: String?
    /// `itunes:author`: the authors when the item names none in its own elements or Dublin Core.
    var itunesAuthors: [Person] = []
    /// `media:credit` with an author's role: the authors when nothing else names one.
    var creditAuthors: [Person] = []
    /// `itunes:duration`, in seconds: the duration of the item's enclosures.
    var itunesDuration: Int?
    private var titleRank = Rank()
    private var summaryRank = Rank()
    private var publishedRank = Rank()
    private var updatedRank = Rank()
    private var linkRank = Rank()
    private var imageRank = Rank()
    private var rightsRank = Rank()

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
    mutating func offerRights(_ value: Text?, rank: Int) {
        if rightsRank.accepts(value != nil, rank: rank) { entry.rights = value }
    }

    mutating func addAuthor(_ person: Person) {
        if !person.isEmpty, !entry.authors.contains(person) { entry.authors.append(person) }
    }

    mutating func addEnclosure(_ enclosure: Enclosure) {
        if !entry.enclosures.contains(where: { $0.url == enclosure.url }) { entry.enclosures.append(enclosure) }
    }

    mutating func addCategory(_ category: Category) {
        if !entry.categories.contains(category) { entry.categories.append(category) }
    }

    /// The entry, moved out of the builder.
    mutating func build() -> Entry {
        if entry.id == nil { entry.id = fallbackID }
        if entry.link == nil { entry.link = permalinkGUID ?? linkFromID }
        if entry.authors.isEmpty { entry.authors = itunesAuthors.isEmpty ? creditAuthors : itunesAuthors }
        if let itunesDuration {
            for index in entry.enclosures.indices where entry.enclosures[index].duration == nil {
                entry.enclosures[index].duration = itunesDuration
            }
        }
        // Moved out, not copied: the builder is done with.
        var built = Entry()
        swap(&built, &entry)
        return built
    }

    /// Whether `value` is an http or https URL: the only ids that are links too.
    static func isWebURL(_ value: String) -> Bool {
        func starts(with prefix: String.UTF8View) -> Bool {
            value.utf8.count > prefix.count && zip(value.utf8, prefix).allSatisfy { $0 | 0x20 == $1 }
        }
        return starts(with: "http://".utf8) || starts(with: "https://".utf8)
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
    /// share: Dublin Core (elements and terms), content, XHTML, Media RSS,
    /// iTunes. Returns false for an element it does not know.
    ///
    /// Ranks, lowest wins: a format's own element has rank 0, then Dublin
    /// Core, then iTunes, then Media RSS (item or `media:group` level, then
    /// the level of one `media:content`).
    mutating func mapExtension(
        _ child: DOMElement, namespace: Namespace?, name: String,
        into builder: inout EntryBuilder, label: String
    ) -> Bool {
        switch namespace {
        case .dc?, .dcterms?:
            return mapDublinCore(child, name: name, into: &builder, label: label)
        case .itunes?: return mapITunes(child, name: name, into: &builder)
        case .googleplay?:
            // Google Play's podcast tags, a subset of iTunes': read as those.
            guard ["author", "description", "image", "explicit"].contains(name) else { return false }
            return mapITunes(child, name: name == "description" ? "summary" : name, into: &builder)
        case .media?: return mapMedia(child, name: name, level: 0, into: &builder)
        case .content? where name == "encoded":
            if let value = rssText(child, kind: .html) { builder.entry.content.append(value) }
        case .xhtml? where name == "body" || name == "div":
            let value = child.innerMarkup.trimmingWhitespace
            if !value.isEmpty { builder.entry.content.append(absolutizingLinks(Text(value, kind: .xhtml), at: child)) }
        case .feedburner? where name == "origLink":
            // The feed's own `link` (often a FeedBurner redirect) wins, as feedparser has it.
            builder.offerLink(absolute(text(child), at: child), rank: 3)
        default:
            return false
        }
        return true
    }

    /// Dublin Core: the fifteen elements (`http://purl.org/dc/elements/1.1/`)
    /// and the same names plus the refinements of DCMI terms (`http://purl.org/dc/terms/`).
    private mutating func mapDublinCore(
        _ child: DOMElement, name: String, into builder: inout EntryBuilder, label: String
    ) -> Bool {
        switch name {
        case "creator", "author":  // `dc:author` is not Dublin Core, but feeds write it
            if let person = rssPerson(child) { builder.addAuthor(person) }
        case "contributor":
            if let person = rssPerson(child) {
                if !builder.entry.contributors.contains(person) { builder.entry.contributors.append(person) }
            }
        case "date":
            let t = date(child, label: label)
            builder.offerPublished(t, rank: 5)
            builder.offerUpdated(t, rank: 5)
        case "issued", "created", "available", "dateSubmitted", "dateAccepted":
            // "available" is when the resource became available: its publication, for a feed reader.
            builder.offerPublished(date(child, label: label), rank: name == "issued" ? 3 : 4)
        case "modified":
            builder.offerUpdated(date(child, label: label), rank: 3)
        case "subject":
            if let value = text(child) { builder.addCategory(Category(term: value)) }
        case "rights", "license", "accessRights":
            builder.offerRights(rssText(child, kind: .text), rank: name == "rights" ? 1 : 2)
        case "language":
            if builder.entry.language == nil { builder.entry.language = text(child) }
        case "identifier":
            if builder.fallbackID == nil { builder.fallbackID = text(child) }
        case "title":
            builder.offerTitle(rssText(child, kind: .text), rank: 1)
        case "description", "abstract":
            builder.offerSummary(rssText(child, kind: .html), rank: 3)
        default:
            // publisher (of an item: not its author), source, relation, type,
            // format, coverage, valid: nothing in the model reads them.
            return false
        }
        return true
    }

    /// Apple's podcast namespace (RSS items; Atom entries too, as feeds do).
    private mutating func mapITunes(_ child: DOMElement, name: String, into builder: inout EntryBuilder) -> Bool {
        switch name.lowercased() {
        case "author":
            if let person = rssPerson(child) {
                if !person.isEmpty, !builder.itunesAuthors.contains(person) { builder.itunesAuthors.append(person) }
            }
        case "image":
            builder.offerImage(itunesImage(child), rank: 1)
        case "link" where child.attribute("rel") == "image":
            builder.offerImage(absolute(child.attribute("href"), at: child), rank: 1)
        case "category":
            for category in itunesCategories(child) { builder.addCategory(category) }
        case "keywords":
            for category in keywordCategories(child, scheme: MappingContext.itunesScheme) {
                builder.addCategory(category)
            }
        case "title":
            builder.offerTitle(rssText(child, kind: .text), rank: 2)
        case "summary":
            builder.offerSummary(rssText(child, kind: .text), rank: 4)
        case "subtitle":
            builder.offerSummary(rssText(child, kind: .text), rank: 6)
        case "duration":
            builder.itunesDuration =
                builder.itunesDuration ?? text(child).flatMap(MappingContext.seconds(fromDuration:))
        case "explicit":
            builder.entry.explicit = builder.entry.explicit ?? text(child).flatMap(MappingContext.explicit(_:))
        default:
            // block, episode, season, episodeType, order, isClosedCaptioned:
            // directory instructions and numbering the model has no place for.
            return false
        }
        return true
    }

    /// Media RSS 1.5.1. `level` 0 is the item (or a `media:group`, whose
    /// elements describe the item's media as a whole), 1 one `media:content`:
    /// an item's own elements win over those of one of its media objects.
    private mutating func mapMedia(
        _ child: DOMElement, name: String, level: Int, into builder: inout EntryBuilder
    ) -> Bool {
        switch name {
        case "group":
            for member in child.children where member.namespace == .media {
                _ = mapMedia(member, name: member.name, level: level, into: &builder)
            }
        case "content":
            guard level == 0 else { return true }  // no content inside content
            mapMediaContent(child, into: &builder)
        case "thumbnail":
            builder.offerImage(absolute(child.attribute("url"), at: child), rank: 2 + 2 * level)
        case "title":
            builder.offerTitle(mediaText(child), rank: 3 + level)
        case "description":
            builder.offerSummary(mediaText(child), rank: 5 + 2 * level)
        case "keywords":
            for category in keywordCategories(child, scheme: nil) { builder.addCategory(category) }
        case "category":
            if let category = mediaCategory(child) { builder.addCategory(category) }
        case "credit":
            if let person = mediaCredit(child), !builder.creditAuthors.contains(person) {
                builder.creditAuthors.append(person)
            }
        case "copyright":
            builder.offerRights(rssText(child, kind: .text), rank: 3 + level)
        case "rating":
            builder.entry.explicit = builder.entry.explicit ?? mediaRating(child)
        default:
            // player, hash, embed, text, restriction, community, ...: no place in the model.
            return false
        }
        return true
    }

    /// `media:content`: an enclosure (url, fileSize, type, medium, duration),
    /// and the elements nested in it, which describe that one object.
    private mutating func mapMediaContent(_ child: DOMElement, into builder: inout EntryBuilder) {
        for member in child.children where member.namespace == .media {
            _ = mapMedia(member, name: member.name, level: 1, into: &builder)
        }
        guard let url = absolute(child.attribute("url"), at: child) else { return }
        let type = child.attribute("type")?.trimmingWhitespace
        let medium = child.attribute("medium")?.trimmingWhitespace.lowercased()
        if medium == "image" || type?.hasPrefix("image/") == true {
            builder.offerImage(url, rank: 3)
        }
        let length = child.attribute("fileSize").flatMap { Int($0.trimmingWhitespace) }
        let duration = child.attribute("duration").flatMap(MappingContext.seconds(fromDuration:))
        let fallbackType = medium.flatMap { ["image", "audio", "video"].contains($0) ? "\($0)/*" : nil }
        builder.addEnclosure(
            Enclosure(
                url: url, length: length, type: type.flatMap { $0.isEmpty ? nil : $0 } ?? fallbackType,
                duration: duration))
    }
}
