import FeedModel
import HTMLSanitizer

extension Text {
    /// Markup (HTML or XHTML) through the HTML sanitizer, written as HTML
    /// (its kind stays what the feed declared); plain text as it is (it is
    /// escaped wherever it is written).
    public func sanitized(base: String?) -> Text {
        kind == .text ? self : Text(HTMLSanitizer.sanitize(value, base: base), kind: kind)
    }
}

extension Entry {
    /// The entry with every markup value sanitized: title, summary, content
    /// and rights, relative URLs resolved against `base`.
    public func sanitized(base: String?) -> Entry {
        var entry = self
        entry.title = title?.sanitized(base: base)
        entry.summary = summary?.sanitized(base: base)
        entry.content = content.map { $0.sanitized(base: base) }
        entry.rights = rights?.sanitized(base: base)
        return entry
    }

    /// Also its addresses (merge `--sanitize`): the link, comments, image,
    /// enclosures and people's pages kept only as a page may link to them
    /// (`HTMLSanitizer.webLink`: http, https, mailto).
    public func sanitizedWithLinks(base: String?) -> Entry {
        var entry = sanitized(base: base)
        entry.link = link.flatMap(HTMLSanitizer.webLink)
        entry.comments = comments.flatMap(HTMLSanitizer.webLink)
        entry.image = image.flatMap(HTMLSanitizer.webLink)
        entry.enclosures = enclosures.filter { HTMLSanitizer.webLink($0.url) != nil }
        entry.authors = authors.map { $0.withSafePage }
        entry.contributors = contributors.map { $0.withSafePage }
        return entry
    }
}

extension Person {
    /// The person with a `uri` a page may link to, else none.
    public var withSafePage: Person {
        var person = self
        person.uri = uri.flatMap(HTMLSanitizer.webLink)
        return person
    }
}

extension ParsedFeed {
    /// The feed with every markup value sanitized (`parse --sanitize`): feed
    /// title, subtitle and rights, and each entry's, as feedparser sanitizes
    /// them. Relative URLs were already resolved by the parse.
    public func sanitized() -> ParsedFeed {
        var feed = self
        feed.metadata.title = metadata.title?.sanitized(base: nil)
        feed.metadata.subtitle = metadata.subtitle?.sanitized(base: nil)
        feed.metadata.rights = metadata.rights?.sanitized(base: nil)
        feed.entries = entries.map { $0.sanitized(base: nil) }
        return feed
    }
}
