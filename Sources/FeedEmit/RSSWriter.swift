import FeedModel

/// RSS 2.0, with `content:encoded` for full content, `dc:creator` for
/// authors without an address, and `atom:link rel="self"`.
enum RSSWriter {
    static func render(_ entries: [MergedEntry], metadata: OutputMetadata, into out: inout TextBuffer) {
        out.append(
            """
            <?xml version="1.0" encoding="utf-8"?>
            <rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" \
            xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/">
            <channel>

            """)
        out.element("title", metadata.title, indent: "  ")
        out.element("link", metadata.link ?? metadata.selfURL ?? metadata.id, indent: "  ")
        out.element("description", metadata.title, indent: "  ")
        if let selfURL = metadata.selfURL {
            out.emptyElement(
                "atom:link", attributes: [("rel", "self"), ("type", "application/rss+xml"), ("href", selfURL)],
                indent: "  ")
        }
        out.element("lastBuildDate", metadata.updated.rfc822, indent: "  ")
        out.element("generator", "\(metadata.generator) \(metadata.generatorVersion)", indent: "  ")
        if let author = metadata.author, let email = author.email {
            out.element("managingEditor", author.name.map { "\(email) (\($0))" } ?? email, indent: "  ")
        }
        entries.forEachBorrowed { entry in
            item(entry, into: &out)
            out.drainIfFull()
        }
        out.append("</channel>\n</rss>\n")
    }

    private static func item(_ item: MergedEntry, into out: inout TextBuffer) {
        let e = item.entry
        out.append("  <item>\n")
        out.element("title", item.plainTitle, indent: "    ")
        out.element("link", e.link, indent: "    ")
        let id = item.stableID
        let isPermaLink = id == e.link && id.hasPrefix("http")
        out.element("guid", id, attributes: [("isPermaLink", isPermaLink ? "true" : "false")], indent: "    ")
        out.element("pubDate", item.date.rfc822, indent: "    ")
        for author in e.authors {
            if let email = author.email {
                out.element("author", author.name.map { "\(email) (\($0))" } ?? email, indent: "    ")
            } else if let name = author.name {
                out.element("dc:creator", name, indent: "    ")
            }
        }
        for category in e.categories {
            out.element("category", category.term, attributes: [("domain", category.scheme)], indent: "    ")
        }
        if let description = e.summary ?? e.content.first {
            out.element("description", html(description), indent: "    ")
        }
        if let content = e.content.first, e.summary != nil {
            out.element("content:encoded", html(content), indent: "    ")
        }
        // RSS 2.0 allows one enclosure per item.
        if let enclosure = e.enclosures.first {
            out.emptyElement(
                "enclosure",
                attributes: [
                    ("url", enclosure.url), ("length", String(enclosure.length ?? 0)),
                    ("type", enclosure.type ?? "application/octet-stream"),
                ], indent: "    ")
        }
        out.element(
            "source", item.source.title ?? item.source.feedURL, attributes: [("url", item.source.feedURL)],
            indent: "    ")
        out.append("  </item>\n")
    }

    /// RSS descriptions are HTML: plain text is escaped once more.
    private static func html(_ value: Text) -> String {
        value.kind == .text ? XMLText.escape(value.value) : value.value
    }
}
