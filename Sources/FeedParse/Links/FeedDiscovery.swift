import Basics
import XMLTree

/// The feeds an HTML page advertises, as feed autodiscovery has them:
/// `<link rel="alternate" type="application/atom+xml" href="…">` (RSS's
/// and Atom's autodiscovery), `application/rss+xml`, `application/rdf+xml`
/// (RSS 1.0) and `application/feed+json` or `application/json` (JSON
/// Feed's); the address taken from the page's `<base href>` when it has one.
public enum FeedDiscovery {
    public struct Advertised: Equatable, Sendable {
        public var url: String
        /// The media type, lowercased, without parameters.
        public var type: String
        public var title: String?
    }

    /// Whether a document that is not a feed is an HTML page: its content
    /// type says so, or it starts (after a byte-order mark, a doctype or
    /// comments) with `<html`.
    public static func isHTML(_ bytes: [UInt8], contentType: String?) -> Bool {
        if let type = contentType?.lowercased(), type.hasPrefix("text/html") || type.hasPrefix("application/xhtml") {
            return true
        }
        let start = String(decoding: bytes.prefix(2048), as: UTF8.self).lowercased()
        return start.contains("<html") || start.contains("<!doctype html")
    }

    /// Every feed the page advertises, in the page's order.
    public static func advertisedFeeds(in bytes: [UInt8], page: String?) -> [Advertised] {
        // Advertisements live in the head: the first megabyte is plenty.
        let text = String(decoding: bytes.prefix(1 << 20), as: UTF8.self)
        var base = page
        var found: [Advertised] = []
        for tag in tags(in: text) {
            let attributes = tag.attributes
            if tag.name == "base", let href = attributes["href"], base == page {
                base = URLReference.resolve(href, against: page)
                continue
            }
            guard tag.name == "link", let href = attributes["href"], !href.isEmpty,
                let rel = attributes["rel"]?.lowercased().split(whereSeparator: \.isWhitespace),
                rel.contains("alternate"), !rel.contains("stylesheet"),
                let type = attributes["type"]?.lowercased().split(separator: ";").first?.trimmingWhitespace,
                feedTypes.contains(type)
            else { continue }
            found.append(
                Advertised(url: URLReference.resolve(href, against: base), type: type, title: attributes["title"]))
        }
        return found
    }

    private static let feedTypes: Set<String> = [
        "application/atom+xml", "application/rss+xml", "application/rdf+xml", "application/feed+json",
        "application/json",
    ]

    /// The one to follow: the first Atom feed, else the first RSS 2.0 feed,
    /// else JSON Feed, else RSS 1.0; a feed whose title says it carries
    /// comments only when the page advertises nothing else.
    public static func best(_ feeds: [Advertised]) -> Advertised? {
        let order = [
            "application/atom+xml", "application/rss+xml", "application/feed+json", "application/json",
            "application/rdf+xml",
        ]
        func rank(_ feed: Advertised) -> Int {
            let comments = feed.title?.lowercased().contains("comment") == true ? order.count : 0
            return comments + (order.firstIndex(of: feed.type) ?? order.count)
        }
        return feeds.enumerated().min { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }?.element
    }

    /// Start tags, each with its name (lowercased) and attributes.
    private static func tags(in text: String) -> [(name: String, attributes: [String: String])] {
        var result: [(String, [String: String])] = []
        var rest = text[...]
        while let open = rest.firstIndex(of: "<") {
            rest = rest[rest.index(after: open)...]
            if rest.hasPrefix("!--") {
                guard let end = rest.range(of: "-->") else { break }
                rest = rest[end.upperBound...]
                continue
            }
            let name = rest.prefix { $0.isLetter || $0.isNumber }.lowercased()
            guard name == "link" || name == "base" else {
                if name == "body" { break }  // advertisements are in the head
                continue
            }
            rest = rest.dropFirst(name.count)
            var attributes: [String: String] = [:]
            while true {
                rest = rest.drop { $0.isWhitespace || $0 == "/" }
                guard let first = rest.first, first != ">" else { break }
                let key = rest.prefix { !$0.isWhitespace && $0 != "=" && $0 != ">" && $0 != "/" }.lowercased()
                rest = rest.dropFirst(max(key.count, 1)).drop { $0.isWhitespace }
                var value = ""
                if rest.first == "=" {
                    rest = rest.dropFirst().drop { $0.isWhitespace }
                    if let quote = rest.first, quote == "\"" || quote == "'" {
                        rest = rest.dropFirst()
                        value = String(rest.prefix { $0 != quote })
                        rest = rest.dropFirst(value.count + 1)
                    } else {
                        value = String(rest.prefix { !$0.isWhitespace && $0 != ">" })
                        rest = rest.dropFirst(value.count)
                    }
                }
                if !key.isEmpty && attributes[key] == nil { attributes[key] = decoded(value) }
            }
            result.append((name, attributes))
        }
        return result
    }

    /// An attribute value with its character references read (`&amp;`, `&#38;`, …).
    private static func decoded(_ value: String) -> String {
        CharacterReferences.decode(value, html: true).trimmingWhitespace
    }
}
