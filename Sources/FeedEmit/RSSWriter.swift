import FeedModel
import TextOutput

/// RSS 2.0, with `content:encoded` for full content, `dc:creator` for
/// authors without an address, and `atom:link rel="self"` (and `rel="hub"`).
enum RSSWriter {
    static func render(_ entries: [MergedEntry], metadata: OutputMetadata, into out: inout TextBuffer) {
        out.append(
            """
            <?xml version="1.0" encoding="utf-8"?>
            <rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" \
            xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/">
            <channel>

            """)
        out.element("title", metadata.title, indent: 2)
        out.element("link", metadata.link ?? metadata.selfURL ?? metadata.id, indent: 2)
        out.element("description", metadata.title, indent: 2)
        if let selfURL = metadata.selfURL {
            out.emptyElement("atom:link", indent: 2) {
                $0.attribute("rel", "self")
                $0.attribute("type", "application/rss+xml")
                $0.attribute("href", selfURL)
            }
        }
        for hub in metadata.hubs {
            out.emptyElement("atom:link", indent: 2) {
                $0.attribute("rel", "hub")
                $0.attribute("href", hub)
            }
        }
        out.element("lastBuildDate", metadata.updated, .rfc822, indent: 2)
        out.element("generator", "\(metadata.generator) \(metadata.generatorVersion)", indent: 2)
        if let author = metadata.author, let email = author.email, Person.isAddress(email) {
            out.element("managingEditor", author.name.map { "\(email) (\($0))" } ?? email, indent: 2)
        }
        entries.forEachInPlace { entry in
            item(entry, into: &out)
            out.drainIfFull()
        }
        out.append("</channel>\n</rss>\n")
    }

    private static func item(_ item: UnsafePointer<MergedEntry>, into out: inout TextBuffer) {
        out.append("  <item>\n")
        out.element("title", item.plainTitle, indent: 4)
        let link = item.pointee.entry.link
        out.element("link", link, indent: 4)
        let id = item.stableID
        let isPermaLink = id == link && id.hasPrefix("http")
        out.element("guid", id, indent: 4) { $0.attribute("isPermaLink", isPermaLink ? "true" : "false") }
        out.element("pubDate", item.pointee.date, .rfc822, indent: 4)
        for author in item.pointee.entry.authors {
            if let email = author.email, Person.isAddress(email) {
                out.element("author", author.name.map { "\(email) (\($0))" } ?? email, indent: 4)
            } else if let name = author.name {
                out.element("dc:creator", name, indent: 4)
            }
        }
        for category in item.pointee.entry.categories {
            out.element("category", category.term, indent: 4) { $0.attribute("domain", category.scheme) }
        }
        let summary = item.pointee.entry.summary
        let content = item.pointee.entry.content.first
        if let description = summary ?? content {
            out.markupElement("description", html(description), indent: 4)
        }
        if let content, summary != nil {
            out.markupElement("content:encoded", html(content), indent: 4)
        }
        // RSS 2.0 allows one enclosure per item.
        if let enclosure = item.pointee.entry.enclosures.first {
            out.emptyElement("enclosure", indent: 4) {
                $0.attribute("url", enclosure.url)
                $0.attribute("length", String(enclosure.length ?? 0))
                $0.attribute("type", enclosure.mediaType ?? "application/octet-stream")
            }
        }
        let feedURL = item.pointee.source.feedURL
        out.element("source", item.pointee.source.title ?? feedURL, indent: 4) { $0.attribute("url", feedURL) }
        out.append("  </item>\n")
    }

    /// RSS descriptions are HTML (written as CDATA sections): plain text is
    /// escaped first.
    private static func html(_ value: Text) -> String {
        value.kind == .text ? XMLText.escape(value.value) : value.value
    }
}
