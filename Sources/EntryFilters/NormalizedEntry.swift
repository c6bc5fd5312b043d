import FeedModel
import FeedParse
import HTMLSanitizer
import TextOutput

/// An entry as Planet Venus hands it to a filter: one Atom 1.0 `entry`
/// document, its text constructs as XHTML (`type="xhtml"`, one `xhtml:div`,
/// the markup sanitized as the planet page's is), its feed in `source`.
/// Venus's XSLT filters (`detitle.xslt`, …) and XPath sifters read this
/// form; what a filter gives back is read as an Atom entry again.
enum NormalizedEntry {
    static func document(_ entry: Entry, source: FeedMetadata?, feedURL: String?) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<entry xmlns=\"http://www.w3.org/2005/Atom\""
        out += " xmlns:planet=\"http://planet.intertwingly.net/\""
        if let language = entry.language { out += " xml:lang=\"\(escaped(language))\"" }
        out += ">"
        if let id = entry.id { out += "<id>\(escaped(id))</id>" }
        if let link = entry.link { out += "<link rel=\"alternate\" href=\"\(escaped(link))\" type=\"text/html\"/>" }
        let base = entry.link ?? source?.link
        if let title = entry.title { out += text("title", title, base: base) }
        if let summary = entry.summary { out += text("summary", summary, base: base) }
        if let content = entry.content.first { out += text("content", content, base: base) }
        if let updated = entry.updated { out += "<updated>\(updated.rfc3339)</updated>" }
        if let published = entry.published { out += "<published>\(published.rfc3339)</published>" }
        for author in entry.authors { out += person("author", author) }
        for contributor in entry.contributors { out += person("contributor", contributor) }
        for category in entry.categories {
            out += "<category term=\"\(escaped(category.term))\""
            if let scheme = category.scheme { out += " scheme=\"\(escaped(scheme))\"" }
            if let label = category.label { out += " label=\"\(escaped(label))\"" }
            out += "/>"
        }
        for enclosure in entry.enclosures {
            out += "<link rel=\"enclosure\" href=\"\(escaped(enclosure.url))\""
            if let type = enclosure.type { out += " type=\"\(escaped(type))\"" }
            if let length = enclosure.length { out += " length=\"\(length)\"" }
            out += "/>"
        }
        if let rights = entry.rights { out += text("rights", rights, base: base) }
        if source != nil || feedURL != nil {
            out += "<source>"
            if let id = source?.id ?? feedURL { out += "<id>\(escaped(id))</id>" }
            if let title = source?.title?.value { out += "<title>\(escaped(title))</title>" }
            if let link = source?.link {
                out += "<link rel=\"alternate\" href=\"\(escaped(link))\" type=\"text/html\"/>"
            }
            if let feedURL { out += "<link rel=\"self\" href=\"\(escaped(feedURL))\"/>" }
            out += "</source>"
        }
        return out + "</entry>\n"
    }

    /// The entry a filter gave back (an Atom `entry` element), or nil when
    /// it gave nothing (the entry is dropped) or something that is not one.
    static func read(_ xml: String, base: String?) -> Entry? {
        var body = xml[...]
        if body.hasPrefix("<?xml"), let end = body.range(of: "?>") { body = body[end.upperBound...] }
        guard body.contains("<") else { return nil }
        let wrapped = "<feed xmlns=\"http://www.w3.org/2005/Atom\">" + body + "</feed>"
        guard let feed = try? FeedParser.parse(Array(wrapped.utf8), options: .init(url: base)),
            feed.entries.count == 1
        else { return nil }
        return feed.entries[0]
    }

    private static func text(_ name: String, _ value: Text, base: String?) -> String {
        let markup =
            value.kind == .text
            ? escaped(value.value) : HTMLSanitizer.sanitizeToXHTML(value.value, base: base)
        return "<\(name) type=\"xhtml\"><div xmlns=\"http://www.w3.org/1999/xhtml\">\(markup)</div></\(name)>"
    }

    private static func person(_ role: String, _ person: Person) -> String {
        var out = "<\(role)>"
        if let name = person.name { out += "<name>\(escaped(name))</name>" }
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
