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

    /// The document of `input`; with `listsSources` false, without its
    /// `planet:source` elements (the default theme's list is made apart:
    /// `PageSubscriptions`), `input.sources` then naming only the feeds of
    /// its entries.
    static func render(_ input: PlanetPageInput, listsSources: Bool = true, into out: inout TextBuffer) {
        out.append("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed")
        namespaces(into: &out)
        let metadata = input.metadata
        out.element("title", metadata.title, indent: 2)
        out.element("id", metadata.id, indent: 2)
        date("updated", input.generated, indent: 2, into: &out)
        if let link = metadata.link {
            linkElement(rel: "alternate", href: link, type: "text/html", indent: 2, into: &out)
        }
        if let selfURL = metadata.selfURL {
            linkElement(rel: "self", href: selfURL, type: "application/atom+xml", indent: 2, into: &out)
        }
        // Venus's splice names its hub (`pubsubhubbub_hub`) here; a theme's Atom copies it.
        for hub in metadata.hubs { linkElement(rel: "hub", href: hub, type: nil, indent: 2, into: &out) }
        if let author = metadata.author { out.atomPerson("author", author.withSafePage, indent: 2) }
        out.element("generator", metadata.generator, indent: 2) {
            $0.attribute("uri", metadata.generatorURI)
            $0.attribute("version", metadata.generatorVersion)
        }
        var sources: [String: PlanetSource] = [:]
        for source in input.sources {
            if listsSources { subscription(source, into: &out) }
            sources[source.feedURL] = source
        }
        input.entries.forEachInPlace { item in
            entry(
                item, summaryOnly: input.summaryOnly, excerptLength: input.excerptLength, sources: sources, into: &out)
            out.drainIfFull()
        }
        out.append("</feed>\n")
    }

    /// The subscriptions alone, in order: the document the default theme's
    /// `/feedmerge:subscriptions` template lists.
    static func render(subscriptions: ArraySlice<PlanetSource>, into out: inout TextBuffer) {
        out.append("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feedmerge:subscriptions")
        namespaces(into: &out)
        for source in subscriptions { subscription(source, into: &out) }
        out.append("</feedmerge:subscriptions>\n")
    }

    private static func namespaces(into out: inout TextBuffer) {
        out.append(" xmlns=\"http://www.w3.org/2005/Atom\"")
        out.append(" xmlns:planet=\"http://planet.intertwingly.net/\" xmlns:feedmerge=\"urn:feedmerge:page\"")
        out.append(" xmlns:xhtml=\"http://www.w3.org/1999/xhtml\">\n")
    }

    private static func subscription(_ source: PlanetSource, into out: inout TextBuffer) {
        out.append("  <planet:source>\n")
        out.element("id", source.id ?? source.feedURL, indent: 4)
        out.element("title", source.title ?? source.name, indent: 4)
        out.element("subtitle", source.subtitle, indent: 4)
        out.element("icon", source.icon.flatMap(PageLink.safe), indent: 4)
        if let link = source.link {
            linkElement(rel: "alternate", href: link, type: "text/html", indent: 4, into: &out)
        }
        linkElement(rel: "self", href: source.shownFeedAddress, type: nil, indent: 4, into: &out)
        if let updated = source.newestEntry { date("updated", updated, indent: 4, into: &out) }
        out.element("planet:name", source.name, indent: 4)
        out.element("planet:message", source.message, indent: 4)
        out.element("planet:http_status", source.httpStatus.map(String.init), indent: 4)
        out.element("planet:http_location", source.location.flatMap(PageLink.safe), indent: 4)
        out.element("feedmerge:status", source.status.rawValue, indent: 4)
        out.element("feedmerge:partial", source.partialReason, indent: 4)
        if source.failures > 0 { out.element("feedmerge:failures", String(source.failures), indent: 4) }
        if let lastSuccess = source.lastSuccess { date("feedmerge:last-success", lastSuccess, indent: 4, into: &out) }
        if let since = source.failingSince { date("feedmerge:failing-since", since, indent: 4, into: &out) }
        if !source.folder.isEmpty { out.element("feedmerge:folder", source.folder.joined(separator: "/"), indent: 4) }
        properties(of: source, indent: 4, into: &out)
        face(of: source, indent: 4, into: &out)
        out.append("  </planet:source>\n")
    }

    private static func entry(
        _ item: UnsafePointer<MergedEntry>, summaryOnly: Bool, excerptLength: Int, sources: [String: PlanetSource],
        into out: inout TextBuffer
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
        out.element(
            "planet:excerpt",
            excerptSource.map {
                $0.markup
                    ? Excerpt.of(markup: $0.value, length: excerptLength)
                    : Excerpt.of(text: $0.value, length: excerptLength)
            }, indent: 4)
        date("updated", item.pointee.date, indent: 4, into: &out)
        if let published = entry.published, published <= item.pointee.date {
            date("published", published, indent: 4, into: &out)
        }
        for author in item.pointee.ownAuthors { out.atomPerson("author", author.withSafePage, indent: 4) }
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
                $0.attribute("feedmerge:duration", enclosure.duration.map(String.init))
            }
        }
        source(item, subscription: sources[item.pointee.source.feedURL], into: &out)
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
    private static func source(
        _ item: UnsafePointer<MergedEntry>, subscription: PlanetSource?, into out: inout TextBuffer
    ) {
        let source = item.pointee.source
        out.append("    <source>\n")
        out.element("id", source.id ?? source.feedURL, indent: 6)
        out.element("title", source.title, indent: 6)
        if let link = source.link {
            linkElement(rel: "alternate", href: link, type: "text/html", indent: 6, into: &out)
        }
        linkElement(
            rel: "self", href: subscription?.shownFeedAddress ?? source.feedURL, type: nil, indent: 6, into: &out)
        for author in source.authors { out.atomPerson("author", author.withSafePage, indent: 6) }
        // Venus names the author of an entry nobody is named for after its subscription.
        if let name = subscription?.properties["name"], !item.pointee.ownAuthors.contains(where: { $0.name != nil }),
            !source.authors.contains(where: { $0.name != nil })
        {
            out.atomPerson("author", Person(name: name), indent: 6)
        }
        if let rights = source.rights { _ = text("rights", rights, base: source.link, into: &out) }
        out.element("planet:name", subscription?.name ?? source.title ?? source.feedURL, indent: 6)
        if let subscription {
            properties(of: subscription, indent: 6, into: &out)
            face(of: subscription, indent: 6, into: &out)
        }
        out.append("    </source>\n")
    }

    /// What `planet:` elements a subscription's properties may not replace.
    private static let writtenByFeedmerge: Set<String> = ["name", "message", "http_status", "http_location", "source"]

    /// A subscription without a `face` of its own (Venus's avatar) has its
    /// feed's icon or logo, when the page may link to it.
    private static func face(of source: PlanetSource, indent: Int, into out: inout TextBuffer) {
        guard source.properties["face"] == nil, let icon = source.icon.flatMap(PageLink.safe) else { return }
        out.element("planet:face", icon, indent: indent)
    }

    /// A subscription's properties, each as `planet:KEY` (in key order), as
    /// Venus writes a configuration's per-feed options; a key that is not an
    /// XML name, or one feedmerge writes itself, is left out.
    private static func properties(of source: PlanetSource, indent: Int, into out: inout TextBuffer) {
        for key in source.properties.keys.sorted() where !writtenByFeedmerge.contains(key) && isXMLName(key) {
            out.append(spaces: indent)
            out.append("<planet:")
            out.append(contentsOf: key)
            out.append(">")
            out.appendXMLEscaped(source.properties[key]!)
            out.append("</planet:")
            out.append(contentsOf: key)
            out.append(">\n")
        }
    }

    /// A name an element may have after `planet:` (ASCII letters, digits, `_`, `-`, `.`).
    static func isXMLName(_ key: String) -> Bool {
        func letter(_ c: Unicode.Scalar) -> Bool { ("a"..."z").contains(c) || ("A"..."Z").contains(c) || c == "_" }
        guard let first = key.unicodeScalars.first, letter(first) else { return false }
        return key.unicodeScalars.allSatisfy { letter($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "." }
    }

    private static func date(_ name: StaticString, _ value: Timestamp, indent: Int, into out: inout TextBuffer) {
        out.startTag(name, indent: indent)
        let forms = PageDates.all(value)
        out.attribute("planet:format", forms.venus)
        out.attribute("feedmerge:day", forms.day)
        out.attribute("feedmerge:time", forms.time)
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
}
