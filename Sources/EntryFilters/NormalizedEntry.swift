import FeedModel
import HTMLSanitizer
import TextOutput

/// An entry as Planet Venus's `reconstitute` hands it to a filter: one
/// Atom 1.0 `entry` document. A text construct whose value is text is a
/// text node (`<title>Hello</title>`), one with markup an XHTML `div`
/// (`type="xhtml"`, sanitized as the planet page's is); the entry always
/// has an `id` and an `updated` (Venus's fallbacks when the feed gives
/// none), and its feed is in `source` with the `planet:` properties.
/// Venus's XSLT filters and XPath sifters read this form; what a filter
/// gives back is read as an Atom entry again (`NormalizedEntry+Reading`).
enum NormalizedEntry {
    /// A document and what it says that the entry itself does not (Venus's
    /// fallbacks), so that a value a filter leaves untouched is read back
    /// as the entry had it.
    struct Written {
        var text: String
        var id: String?
        var updated: Timestamp
        var language: String?
        var authors: [Person]
        var sourceAuthors: [Person]
    }

    static func document(_ entry: Entry, in feed: FilterFeed) -> Written {
        let base = entry.link ?? feed.metadata.link
        let language = entry.language ?? feed.metadata.language
        // reconstitute's `entry_updated`, after the spider's fallbacks: the feed's date, else now.
        let updated = entry.updated ?? entry.published ?? feed.date ?? feed.now
        let authors = entry.authors.map { person in
            // An author without a name is named after the subscription, as Venus names it.
            var person = person
            if person.name?.isEmpty != false, let name = feed.properties["name"] { person.name = name }
            return person
        }
        var written = Written(
            text: "", id: entry.id ?? fallbackID(entry, base: feed.url), updated: updated, language: language,
            authors: authors, sourceAuthors: [])
        var out = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<entry xmlns=\"http://www.w3.org/2005/Atom\""
        out += " xmlns:planet=\"http://planet.intertwingly.net/\""
        if let language { out += " xml:lang=\"\(escaped(language))\"" }
        out += ">"
        if let id = written.id { out += "<id>\(escaped(id))</id>" }
        if let link = entry.link { out += "<link rel=\"alternate\" href=\"\(escaped(link))\" type=\"text/html\"/>" }
        for enclosure in entry.enclosures {
            out += "<link rel=\"enclosure\" href=\"\(escaped(enclosure.url))\""
            if let type = enclosure.type { out += " type=\"\(escaped(type))\"" }
            if let length = enclosure.length { out += " length=\"\(length)\"" }
            out += "/>"
        }
        out += entry.title.map { text("title", $0, base: base) } ?? ""
        if entry.title?.value.isEmpty != false { out += "<title/>" }
        if let summary = entry.summary { out += text("summary", summary, base: base) }
        if let content = entry.content.first { out += text("content", content, base: base) }
        if let rights = entry.rights { out += text("rights", rights, base: base) }
        out += "<updated>\(updated.rfc3339)</updated>"
        if let published = entry.published { out += "<published>\(published.rfc3339)</published>" }
        for category in entry.categories { out += self.category(category) }
        for author in authors { out += person("author", author) }
        for contributor in entry.contributors { out += person("contributor", contributor) }
        out += source(of: entry, in: feed, written: &written)
        written.text = out + "</entry>\n"
        return written
    }

    /// reconstitute's `id()` for an entry without one: its link, else the
    /// text's base, `/` and the MD5 of its title (else summary, else content).
    static func fallbackID(_ entry: Entry, base: String?) -> String? {
        if let link = entry.link, !link.isEmpty { return link }
        let text = [entry.title, entry.summary, entry.content.first].compactMap { $0?.value }.first { !$0.isEmpty }
        return text.map { (base ?? "") + "/" + MD5.hex($0) }
    }

    /// A text construct as reconstitute writes it: text as a text node,
    /// markup as an XHTML `div` (HTML whose sanitized form has no markup is
    /// text); nothing for an empty value.
    static func text(_ name: String, _ value: Text, base: String?) -> String {
        guard !value.value.isEmpty else { return "" }
        if value.kind == .text { return "<\(name)>\(escaped(value.value))</\(name)>" }
        let markup = HTMLSanitizer.sanitizeToXHTML(value.value, base: base)
        // Sanitized XHTML escapes its text for XML: without a tag, it is a text node's content.
        if value.kind == .html, !markup.contains("<") { return "<\(name)>\(markup)</\(name)>" }
        return "<\(name) type=\"xhtml\"><div xmlns=\"http://www.w3.org/1999/xhtml\">\(markup)</div></\(name)>"
    }

    static func category(_ category: Category) -> String {
        var out = "<category term=\"\(escaped(category.term))\""
        if let scheme = category.scheme { out += " scheme=\"\(escaped(scheme))\"" }
        if let label = category.label { out += " label=\"\(escaped(label))\"" }
        return out + "/>"
    }

    /// A person as reconstitute writes one: `name` always (empty when unknown), then `email` and `uri`.
    static func person(_ role: String, _ person: Person) -> String {
        var out = "<\(role)>"
        out += person.name.map { "<name>\(escaped($0))</name>" } ?? "<name/>"
        if let email = person.email { out += "<email>\(escaped(email))</email>" }
        if let uri = person.uri { out += "<uri>\(escaped(uri))</uri>" }
        return out + "</\(role)>"
    }

    /// Text for an element or an attribute value (what XML 1.0 cannot carry left out).
    static func escaped(_ text: String) -> String {
        var out = TextBuffer(capacity: text.utf8.count + 16)
        out.appendXMLEscaped(text, attribute: true)
        return out.text
    }
}
