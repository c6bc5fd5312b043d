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
    consuming func build() -> Entry {
        if entry.id == nil { entry.id = fallbackID }
        if entry.link == nil { entry.link = permalinkGUID ?? linkFromID }
        if entry.authors.isEmpty { entry.authors = itunesAuthors.isEmpty ? creditAuthors : itunesAuthors }
        if let itunesDuration {
            for index in entry.enclosures.indices where entry.enclosures[index].duration == nil {
                entry.enclosures[index].duration = itunesDuration
            }
        }
        return entry
    }

    /// Whether `value` is an http or https URL: the only ids that are links too.
    static func isWebURL(_ value: String) -> Bool {
        let lower = value.prefix(8).lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
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
        case .dc?, .dcterms?: return mapDublinCore(child, name: name, terms: namespace == .dcterms, into: &builder, label: label)
        case .itunes?: return mapITunes(child, name: name, into: &builder)
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
        _ child: DOMElement, name: String, terms: Bool, into builder: inout EntryBuilder, label: String
    ) -> Bool {
        switch name {
        case "creator", "author":  // `dc:author` is not Dublin Core, but feeds write it
            if let value = text(child) { builder.addAuthor(MappingContext.person(fromRSS: value)) }
        case "contributor":
            if let value = text(child) {
                let person = MappingContext.person(fromRSS: value)
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
            if let value = text(child) {
                let person = MappingContext.person(fromRSS: value)
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
            builder.itunesDuration = builder.itunesDuration ?? text(child).flatMap(MappingContext.seconds(fromDuration:))
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
            Enclosure(url: url, length: length, type: type.flatMap { $0.isEmpty ? nil : $0 } ?? fallbackType,
                duration: duration))
    }
}

extension MappingContext {
    static let itunesScheme = "http://www.itunes.com/"
    /// Media RSS 1.5.1: the scheme of a `media:category` that names none.
    static let mediaCategoryScheme = "http://search.yahoo.com/mrss/category_schema"

    /// `itunes:image`: the `href` the spec names; `url` and text as feeds write it.
    func itunesImage(_ element: DOMElement) -> String? {
        absolute(element.attribute("href") ?? element.attribute("url") ?? text(element), at: element)
    }

    /// `itunes:category text=...`, and each nested sub-category after its parent.
    func itunesCategories(_ element: DOMElement) -> [Category] {
        var result: [Category] = []
        if let term = element.attribute("text")?.trimmingWhitespace, !term.isEmpty {
            result.append(Category(term: term, scheme: Self.itunesScheme))
        }
        for child in element.children where child.namespace == .itunes && child.lowercasedName == "category" {
            result.append(contentsOf: itunesCategories(child))
        }
        return result
    }

    /// Comma-separated keywords (`itunes:keywords`, `media:keywords`), one category each.
    func keywordCategories(_ element: DOMElement, scheme: String?) -> [Category] {
        (text(element) ?? "").split(separator: ",").compactMap { keyword in
            let term = String(keyword).trimmingWhitespace
            return term.isEmpty ? nil : Category(term: term, scheme: scheme)
        }
    }

    /// `media:category`: the text is the term, `scheme` defaults to Media RSS's own.
    func mediaCategory(_ element: DOMElement) -> Category? {
        guard let term = text(element) else { return nil }
        let scheme = element.attribute("scheme")?.trimmingWhitespace
        return Category(
            term: term, scheme: scheme.flatMap { $0.isEmpty ? nil : $0 } ?? Self.mediaCategoryScheme,
            label: element.attribute("label"))
    }

    /// `media:title` and `media:description`: `type="plain"` (the default) or `html`.
    func mediaText(_ element: DOMElement) -> Text? {
        let kind: TextKind = element.attribute("type")?.trimmingWhitespace.lowercased() == "html" ? .html : .text
        return rssText(element, kind: kind)
    }

    /// `media:credit` as a person when its role is one of an author (or not given).
    func mediaCredit(_ element: DOMElement) -> Person? {
        let role = element.attribute("role")?.trimmingWhitespace.lowercased() ?? ""
        guard ["", "author", "creator", "writer", "owner", "uploader", "composer", "artist"].contains(role),
            let value = text(element)
        else { return nil }
        let person = Self.person(fromRSS: value)
        return person.isEmpty ? nil : person
    }

    /// `media:rating` in the `urn:simple` scheme (the default): `adult` or `nonadult`.
    func mediaRating(_ element: DOMElement) -> Bool? {
        let scheme = element.attribute("scheme")?.trimmingWhitespace.lowercased() ?? "urn:simple"
        guard scheme == "urn:simple" else { return nil }
        switch text(element)?.lowercased() {
        case "adult": return true
        case "nonadult": return false
        default: return nil
        }
    }

    /// `itunes:explicit`: `true`/`yes`/`explicit` or `false`/`no`/`clean`.
    static func explicit(_ value: String) -> Bool? {
        switch value.trimmingWhitespace.lowercased() {
        case "true", "yes", "explicit": true
        case "false", "no", "clean": false
        default: nil
        }
    }

    /// A duration in whole seconds: `SS`, `MM:SS`, `HH:MM:SS` (iTunes), or
    /// seconds with a fraction (Media RSS's `duration`). nil for anything else.
    static func seconds(fromDuration value: String) -> Int? {
        let parts = value.trimmingWhitespace.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0
        for (index, part) in parts.enumerated() {
            let isLast = index == parts.count - 1
            let whole = isLast ? (part.split(separator: ".", maxSplits: 1).first ?? "") : part
            guard !whole.isEmpty, whole.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let number = Int(whole),
                number < 1_000_000_000
            else { return nil }
            total = total * 60 + number
        }
        return total
    }
}

/// Collects a feed's metadata the way `EntryBuilder` collects an entry's:
/// ranked offers, lowest rank wins, so the order elements come in does not
/// decide (a channel's `description` beats its `itunes:summary` wherever
/// either stands).
struct FeedBuilder {
    var metadata = FeedMetadata()
    /// Authors by rank: the feed's own author elements (0), Dublin Core's
    /// creator (1), `itunes:author` (2).
    var authors: [(rank: Int, person: Person)] = []
    /// Who publishes rather than writes the feed (`dc:publisher`,
    /// `itunes:owner`, `webMaster`, `media:credit`): the authors when the feed names none.
    var publishers: [(rank: Int, person: Person)] = []
    /// `dc:identifier`: the id when the format gives none.
    var fallbackID: String?
    private var titleRank = Rank()
    private var subtitleRank = Rank()
    private var updatedRank = Rank()
    private var publishedRank = Rank()
    private var rightsRank = Rank()
    private var languageRank = Rank()
    private var imageRank = Rank()

    mutating func offerTitle(_ value: Text?, rank: Int) {
        if titleRank.accepts(value != nil, rank: rank) { metadata.title = value }
    }
    mutating func offerSubtitle(_ value: Text?, rank: Int) {
        if subtitleRank.accepts(value != nil, rank: rank) { metadata.subtitle = value }
    }
    mutating func offerUpdated(_ value: Timestamp?, rank: Int) {
        if updatedRank.accepts(value != nil, rank: rank) { metadata.updated = value }
    }
    mutating func offerPublished(_ value: Timestamp?, rank: Int) {
        if publishedRank.accepts(value != nil, rank: rank) { metadata.published = value }
    }
    mutating func offerRights(_ value: Text?, rank: Int) {
        if rightsRank.accepts(value != nil, rank: rank) { metadata.rights = value }
    }
    mutating func offerLanguage(_ value: String?, rank: Int) {
        if languageRank.accepts(value != nil, rank: rank) { metadata.language = value }
    }
    mutating func offerImage(_ value: String?, rank: Int) {
        if imageRank.accepts(value != nil, rank: rank) { metadata.image = value }
    }
    mutating func addAuthor(_ person: Person?, rank: Int) {
        if let person, !person.isEmpty { authors.append((rank, person)) }
    }
    mutating func addPublisher(_ person: Person?, rank: Int) {
        if let person, !person.isEmpty { publishers.append((rank, person)) }
    }
    mutating func addContributor(_ person: Person?) {
        if let person, !person.isEmpty, !metadata.contributors.contains(person) { metadata.contributors.append(person) }
    }
    mutating func addCategory(_ category: Category) {
        if !metadata.categories.contains(where: { $0.term == category.term }) { metadata.categories.append(category) }
    }

    consuming func build() -> FeedMetadata {
        if metadata.id == nil { metadata.id = fallbackID }
        // A stable sort: within a rank, document order.
        let chosen = authors.isEmpty ? publishers : authors
        metadata.authors = chosen.enumerated().sorted { ($0.element.rank, $0.offset) < ($1.element.rank, $1.offset) }
            .map(\.element.person).uniqued()
        return metadata
    }
}

extension MappingContext {
    /// Elements of the extension namespaces a feed's metadata may carry, in
    /// an RSS channel or an Atom feed: Dublin Core, iTunes, Media RSS.
    /// Returns false for an element it does not know.
    ///
    /// Ranks: the format's own elements use 0; Dublin Core 1, iTunes 2-4, Media RSS 5-6.
    mutating func mapFeedExtension(_ child: DOMElement, into feed: inout FeedBuilder) -> Bool {
        let name = child.name
        switch child.namespace {
        case .dc?, .dcterms?:
            switch name {
            case "title": feed.offerTitle(rssText(child, kind: .text), rank: 1)
            case "description", "abstract": feed.offerSubtitle(rssText(child, kind: .html), rank: 1)
            case "language": feed.offerLanguage(text(child), rank: 1)
            case "rights", "license", "accessRights":
                feed.offerRights(rssText(child, kind: .text), rank: name == "rights" ? 1 : 2)
            case "creator", "author": feed.addAuthor(text(child).map(Self.person(fromRSS:)), rank: 1)
            case "publisher": feed.addPublisher(text(child).map(Self.person(fromRSS:)), rank: 0)
            case "contributor": feed.addContributor(text(child).map(Self.person(fromRSS:)))
            case "date": feed.offerUpdated(date(child, label: "feed"), rank: 3)
            case "modified": feed.offerUpdated(date(child, label: "feed"), rank: 2)
            case "issued", "created", "available": feed.offerPublished(date(child, label: "feed"), rank: 1)
            case "subject": if let term = text(child) { feed.addCategory(Category(term: term)) }
            case "identifier": feed.fallbackID = feed.fallbackID ?? text(child)
            default: return false
            }
        case .itunes?:
            switch name.lowercased() {
            case "author": feed.addAuthor(text(child).map(Self.person(fromRSS:)), rank: 2)
            case "owner":
                var owner = Person()
                for part in child.children where part.namespace == .itunes {
                    switch part.lowercasedName {
                    case "name": owner.name = owner.name ?? text(part)
                    case "email": owner.email = owner.email ?? text(part).map(Self.strippingMailto)
                    default: break
                    }
                }
                feed.addPublisher(owner, rank: 1)
            case "image": feed.offerImage(itunesImage(child), rank: 1)
            case "link" where child.attribute("rel") == "image":
                feed.offerImage(absolute(child.attribute("href"), at: child), rank: 1)
            case "category": for category in itunesCategories(child) { feed.addCategory(category) }
            case "keywords":
                for category in keywordCategories(child, scheme: Self.itunesScheme) { feed.addCategory(category) }
            case "title": feed.offerTitle(rssText(child, kind: .text), rank: 2)
            case "subtitle": feed.offerSubtitle(rssText(child, kind: .text), rank: 3)
            case "summary": feed.offerSubtitle(rssText(child, kind: .text), rank: 4)
            case "explicit": feed.metadata.explicit = feed.metadata.explicit ?? text(child).flatMap(Self.explicit(_:))
            default:
                // block, complete, type, new-feed-url: directory instructions
                // (new-feed-url is a move the fetch layer learns from HTTP).
                return false
            }
        case .media?:
            switch name {
            case "title": feed.offerTitle(mediaText(child), rank: 5)
            case "description": feed.offerSubtitle(mediaText(child), rank: 5)
            case "thumbnail": feed.offerImage(absolute(child.attribute("url"), at: child), rank: 2)
            case "category": if let category = mediaCategory(child) { feed.addCategory(category) }
            case "keywords": for category in keywordCategories(child, scheme: nil) { feed.addCategory(category) }
            case "credit": feed.addPublisher(mediaCredit(child), rank: 3)
            case "copyright": feed.offerRights(rssText(child, kind: .text), rank: 5)
            case "rating": feed.metadata.explicit = feed.metadata.explicit ?? mediaRating(child)
            default: return false
            }
        default:
            return false
        }
        return true
    }
}
