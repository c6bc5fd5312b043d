import Basics
import FeedModel
import XMLTree

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
    /// `itunes:owner`, `webMaster`): contacts, never the feed's authors
    /// (the model has no place for them yet).
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
        // The best-ranked source of authors only, in document order: an RSS
        // `managingEditor` and an `itunes:author` are two spellings of one
        // credit, not two authors. Publishers, owners and webmasters are
        // contacts, not authors: the merge credits entries with these authors.
        let best = authors.map(\.rank).min()
        metadata.authors = authors.filter { $0.rank == best }.map(\.person).uniqued()
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
            case "creator", "author": feed.addAuthor(rssPerson(child), rank: 1)
            case "publisher": feed.addPublisher(rssPerson(child), rank: 0)
            case "contributor": feed.addContributor(rssPerson(child))
            case "date": feed.offerUpdated(date(child, label: "feed"), rank: 3)
            case "modified": feed.offerUpdated(date(child, label: "feed"), rank: 2)
            case "issued", "created", "available": feed.offerPublished(date(child, label: "feed"), rank: 1)
            case "subject": if let term = text(child) { feed.addCategory(Category(term: term)) }
            case "identifier": feed.fallbackID = feed.fallbackID ?? text(child)
            default: return false
            }
        case .syndication?:
            switch name {
            case "updatePeriod", "updateFrequency":
                // Read together from the channel: `updatePeriod` (hourly, daily, weekly,
                // monthly, yearly; daily when absent) over `updateFrequency` (1 when absent).
                guard feed.metadata.updateInterval == nil, let channel = child.parent else { return true }
                var period = "daily"
                var frequency = 1
                for part in channel.children where part.namespace == .syndication {
                    if part.name == "updatePeriod", let value = text(part) { period = value.lowercased() }
                    if part.name == "updateFrequency", let value = text(part).flatMap({ Int($0) }) { frequency = value }
                }
                let seconds = [
                    "hourly": 3_600, "daily": 86_400, "weekly": 604_800, "monthly": 2_592_000,
                    "yearly": 31_536_000,
                ][period]
                if let seconds, frequency > 0 { feed.metadata.updateInterval = seconds / frequency }
            case "updateBase": break
            default: return false
            }
        case .itunes?:
            switch name.lowercased() {
            case "author": feed.addAuthor(rssPerson(child), rank: 2)
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
        case .googleplay?:
            // Google Play's podcast tags, a subset of iTunes' (ranked just after them).
            switch name {
            case "author": feed.addAuthor(rssPerson(child), rank: 3)
            case "owner", "email":
                feed.addPublisher(text(child).map { Person(email: Self.address(in: $0)) }, rank: 2)
            case "description": feed.offerSubtitle(rssText(child, kind: .text), rank: 4)
            case "image": feed.offerImage(itunesImage(child), rank: 1)
            case "category":
                if let term = child.attribute("text")?.trimmingWhitespace, !term.isEmpty {
                    feed.addCategory(Category(term: term, scheme: Namespace.googleplay.rawValue))
                }
            case "explicit": feed.metadata.explicit = feed.metadata.explicit ?? text(child).flatMap(Self.explicit(_:))
            default: return false
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
