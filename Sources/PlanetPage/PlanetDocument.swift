import FeedEmit
import FeedModel
import HTMLSanitizer
import TextOutput

/// The document a theme transforms: the merged timeline as Atom, extended
/// with Planet Venus's vocabulary (namespace `http://planet.intertwingly.net/`)
/// so that Venus's own themes read it as they read Venus's:
/// - one `planet:source` per subscription, with its `atom:id`, title, links,
///   `planet:name`, `planet:message` when it failed, `planet:http_status`
///   and `planet:http_location`;
/// - `planet:format` on every `atom:updated`/`atom:published` (a date as
///   people read it);
/// - `planet:name` in each entry's `atom:source`, and `planet:excerpt`;
/// - content and summaries sanitized and carried as XHTML (`type="xhtml"`,
///   one `xhtml:div`), so that themes copy them as nodes.
///
/// What Venus has no word for is in feedmerge's own namespace (`feedmerge:`):
/// each subscription's status and dates, and each date's day and time.
///
/// An entry's `atom:updated` is the date the timeline sorted it by (Venus
/// themes group entries into days by it, in document order).
enum PlanetDocument {
    static let planetNamespace = "http://planet.intertwingly.net/"
    static let feedmergeNamespace = "urn:feedmerge:page"

    static func render(_ input: PlanetPageInput, into out: inout TextBuffer) {
        out.append("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\"")
        out.append(" xmlns:planet=\"http://planet.intertwingly.net/\" xmlns:feedmerge=\"urn:feedmerge:page\"")
        out.append(" xmlns:xhtml=\"http://www.w3.org/1999/xhtml\">\n")
        let metadata = input.metadata
        out.element("title", metadata.title, indent: 2)
        out.element("id", metadata.id, indent: 2)
        date("updated", input.generated, indent: 2, into: &out)
        if let link = metadata.link { linkElement(rel: "alternate", href: link, type: "text/html", indent: 2, into: &out) }
        if let selfURL = metadata.selfURL {
            linkElement(rel: "self", href: selfURL, type: "application/atom+xml", indent: 2, into: &out)
        }
        if let author = metadata.author { person("author", author, indent: 2, into: &out) }
        out.element("generator", metadata.generator, indent: 2) {
            $0.attribute("uri", metadata.generatorURI)
            $0.attribute("version", metadata.generatorVersion)
        }
        var names: [String: String] = [:]
        for source in input.sources {
            subscription(source, into: &out)
            names[source.feedURL] = source.name
        }
        input.entries.forEachInPlace { item in
            entry(item, summaryOnly: input.summaryOnly, names: names, into: &out)
            out.drainIfFull()
        }
        out.append("</feed>\n")
    }

    private static func subscription(_ source: PlanetSource, into out: inout TextBuffer) {
        out.append("  <planet:source>\n")
        out.element("id", source.id ?? source.feedURL, indent: 4)
        out.element("title", source.title ?? source.name, indent: 4)
        out.element("subtitle", source.subtitle, indent: 4)
        out.element("icon", source.icon.flatMap(PageLink.safe), indent: 4)
        if let link = source.link { linkElement(rel: "alternate", href: link, type: "text/html", indent: 4, into: &out) }
        linkElement(rel: "self", href: source.feedURL, type: nil, indent: 4, into: &out)
        if let updated = source.newestEntry { date("updated", updated, indent: 4, into: &out) }
        out.element("planet:name", source.name, indent: 4)
        out.element("planet:message", source.message, indent: 4)
        out.element("planet:http_status", source.httpStatus.map(String.init), indent: 4)
        out.element("planet:http_location", source.location.flatMap(PageLink.safe), indent: 4)
        out.element("feedmerge:status", source.status.rawValue, indent: 4)
        if source.failures > 0 { out.element("feedmerge:failures", String(source.failures), indent: 4) }
        if let lastSuccess = source.lastSuccess { date("feedmerge:last-success", lastSuccess, indent: 4, into: &out) }
        if let since = source.failingSince { date("feedmerge:failing-since", since, indent: 4, into: &out) }
        if !source.folder.isEmpty { out.element("feedmerge:folder", source.folder.joined(separator: "/"), indent: 4) }
        out.append("  </planet:source>\n")
    }

    private static func entry(
        _ item: UnsafePointer<MergedEntry>, summaryOnly: Bool, names: [String: String], into out: inout TextBuffer
    ) {
        let entry = item.pointee.entry
        out.append("  <entry")
        out.attribute("xml:lang", entry.language)
        out.append(">\n")
        out.element("id", item.stableID, indent: 4)
        if let link = entry.link { linkElement(rel: "alternate", href: link, type: "text/html", indent: 4, into: &out) }
        out.element("title", item.plainTitle ?? "", indent: 4) { $0.attribute("type", "text") }
        let base = entry.link ?? item.pointee.source.link
        var excerptSource: (value: String, markup: Bool)?
        if summaryOnly {
            // The summary; an entry with none gets the start of its content, as text.
            if let summary = entry.summary {
                excerptSource = text("summary", summary, base: base, into: &out)
            } else if let content = entry.content.first {
                let start = content.kind == .text ? Excerpt.of(text: content.value) : Excerpt.of(markup: content.value)
                excerptSource = text("summary", Text(start), base: base, into: &out)
            }
        } else {
            if let summary = entry.summary { excerptSource = text("summary", summary, base: base, into: &out) }
            if let content = entry.content.first {
                let shown = text("content", content, base: base, into: &out)
                if excerptSource == nil { excerptSource = shown }
            }
        }
        out.element("planet:excerpt", excerptSource.map { $0.markup ? Excerpt.of(markup: $0.value) : Excerpt.of(text: $0.value) }, indent: 4)
        date("updated", item.pointee.date, indent: 4, into: &out)
        if let published = entry.published, published <= item.pointee.date {
            date("published", published, indent: 4, into: &out)
        }
        for author in entry.authors { person("author", author, indent: 4, into: &out) }
        for category in entry.categories {
            out.emptyElement("category", indent: 4) {
                $0.attribute("term", category.term)
                $0.attribute("scheme", category.scheme)
                $0.attribute("label", category.label)
            }
        }
        for enclosure in entry.enclosures where PageLink.safe(enclosure.url) != nil {
            out.emptyElement("link", indent: 4) {
                $0.attribute("rel", "enclosure")
                $0.attribute("href", PageLink.safe(enclosure.url))
                $0.attribute("type", enclosure.mediaType)
                $0.attribute("length", enclosure.length.map(String.init))
            }
        }
        source(item, name: names[item.pointee.source.feedURL], into: &out)
        out.append("  </entry>\n")
    }

    /// A text construct: plain text escaped, markup sanitized into one
    /// XHTML `div`. Returns the markup (or text) the excerpt is made from.
    private static func text(_ name: StaticString, _ value: Text, base: String?, into out: inout TextBuffer)
        -> (value: String, markup: Bool)
    {
        out.startTag(name, indent: 4)
        if value.kind == .text {
            out.append(" type=\"text\">")
            out.appendXMLEscaped(value.value)
            out.endTag(name)
            return (value.value, false)
        }
        let xhtml = HTMLSanitizer.sanitizeToXHTML(value.value, base: base)
        out.append(" type=\"xhtml\"><div xmlns=\"http://www.w3.org/1999/xhtml\">")
        out.append(contentsOf: xhtml)
        out.append("</div>")
        out.endTag(name)
        return (xhtml, true)
    }

    /// The entry's feed, named as the subscriptions name it (`planet:name`).
    private static func source(_ item: UnsafePointer<MergedEntry>, name: String?, into out: inout TextBuffer) {
        let source = item.pointee.source
        out.append("    <source>\n")
        out.element("id", source.id ?? source.feedURL, indent: 6)
        out.element("title", source.title, indent: 6)
        if let link = source.link { linkElement(rel: "alternate", href: link, type: "text/html", indent: 6, into: &out) }
        linkElement(rel: "self", href: source.feedURL, type: nil, indent: 6, into: &out)
        for author in source.authors { person("author", author, indent: 6, into: &out) }
        out.element("planet:name", name ?? source.title ?? source.feedURL, indent: 6)
        out.append("    </source>\n")
    }

    private static func date(_ name: StaticString, _ value: Timestamp, indent: Int, into out: inout TextBuffer) {
        out.startTag(name, indent: indent)
        out.attribute("planet:format", PageDates.venus(value))
        out.attribute("feedmerge:day", PageDates.day(value))
        out.attribute("feedmerge:time", PageDates.time(value))
        out.append(byte: UInt8(ascii: ">"))
        out.append(value, .rfc3339)
        out.endTag(name)
    }

    /// A link whose address a page may carry (`PageLink.safe`); none otherwise.
    private static func linkElement(rel: String, href: String, type: String?, indent: Int, into out: inout TextBuffer) {
        guard let href = PageLink.safe(href) else { return }
        out.emptyElement("link", indent: indent) {
            $0.attribute("rel", rel)
            $0.attribute("href", href)
            $0.attribute("type", type)
        }
    }

    private static func person(_ name: StaticString, _ person: Person, indent: Int, into out: inout TextBuffer) {
        out.startTag(name, indent: indent)
        out.append(">\n")
        let email = person.email.flatMap { Person.isAddress($0) ? $0 : nil }
        out.element("name", person.name ?? email ?? person.uri ?? "unknown", indent: indent + 2)
        out.element("email", email, indent: indent + 2)
        out.element("uri", person.uri.flatMap(PageLink.safe), indent: indent + 2)
        out.append(spaces: indent)
        out.endTag(name)
    }
}

/// The first words of a value, for `planet:excerpt` (Venus's mobile theme
/// shows it instead of the content) and `--summary-only`: at most `length`
/// characters of its text, whitespace collapsed, cut at a word with "…".
/// One pass over the bytes of the start of the value: a long post costs no
/// more than a short one.
enum Excerpt {
    static let length = 300

    /// From sanitized markup: tags skipped, the references the sanitizer
    /// writes (`&amp;` `&lt;` `&gt;` `&quot;` `&#39;` `&nbsp;`, numeric) decoded.
    static func of(markup: String) -> String { excerpt(markup, markup: true) }

    static func of(text: String) -> String { excerpt(text, markup: false) }

    private static func excerpt(_ value: String, markup: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(length + 8)
        var characters = 0
        var lastWordEnd = 0
        var pendingSpace = false
        var inTag = false
        var value = value
        return value.withUTF8 { bytes -> String in
            var index = 0
            func emit(_ byte: UInt8) {
                if pendingSpace && !out.isEmpty {
                    lastWordEnd = out.count
                    out.append(0x20)
                    characters += 1
                }
                pendingSpace = false
                out.append(byte)
                if byte & 0xC0 != 0x80 { characters += 1 }
            }
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if inTag {
                    if byte == UInt8(ascii: ">") { inTag = false }
                    continue
                }
                if markup && byte == UInt8(ascii: "<") {
                    inTag = true
                    if separatesWords(bytes, at: index) { pendingSpace = true }
                    continue
                }
                if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C {
                    pendingSpace = true
                    continue
                }
                if characters >= length {
                    // Cut at the last word that ended, if any.
                    let keep = lastWordEnd > 0 ? lastWordEnd : out.count
                    return String(decoding: out[..<keep], as: UTF8.self) + "…"
                }
                if markup && byte == UInt8(ascii: "&"), let (scalar, width) = reference(bytes, at: index) {
                    index += width
                    if scalar == 0xA0 || scalar == 0x20 {
                        pendingSpace = true
                        continue
                    }
                    for unit in String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8 { emit(unit) }
                    continue
                }
                emit(byte)
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    private static let blocks: Set<String> = [
        "p", "br", "div", "li", "dt", "dd", "tr", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote",
        "pre", "figcaption", "hr", "img", "ul", "ol", "table", "section", "article", "figure", "details", "summary",
    ]

    /// Whether the tag after a `<` (at `start`) breaks a line, so its words stay apart (`<p>a</p><p>b</p>`).
    private static func separatesWords(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        var index = start
        if index < bytes.count, bytes[index] == UInt8(ascii: "/") { index += 1 }
        let nameStart = index
        while index < bytes.count, index - nameStart < 11,
            (bytes[index] | 0x20) >= 0x61 && (bytes[index] | 0x20) <= 0x7A || (bytes[index] >= 0x31 && bytes[index] <= 0x36)
        {
            index += 1
        }
        return blocks.contains(String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased())
    }

    /// The reference after an `&` (at `start`): its scalar and the bytes it takes, `;` included.
    private static func reference(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> (UInt32, Int)? {
        var end = start
        while end < bytes.count, end - start < 12, bytes[end] != UInt8(ascii: ";") { end += 1 }
        guard end < bytes.count, bytes[end] == UInt8(ascii: ";") else { return nil }
        let name = String(decoding: bytes[start..<end], as: UTF8.self)
        let width = end - start + 1
        switch name {
        case "amp": return (0x26, width)
        case "lt": return (0x3C, width)
        case "gt": return (0x3E, width)
        case "quot": return (0x22, width)
        case "apos": return (0x27, width)
        case "nbsp": return (0xA0, width)
        default:
            guard name.hasPrefix("#") else { return nil }
            let digits = name.dropFirst()
            let value =
                digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
            return value.map { ($0, width) }
        }
    }
}

/// The addresses the page may link to outside the sanitized content
/// (entry, feed and site links, authors' pages, enclosures): those the
/// sanitizer allows in an `href` (http, https, mailto), so that a feed's
/// `javascript:` link never becomes a link on the page.
enum PageLink {
    static func safe(_ url: String) -> String? { HTMLSanitizer.webLink(url) }
}
