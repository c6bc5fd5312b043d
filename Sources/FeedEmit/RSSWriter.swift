import FeedModel

/// RSS 2.0, with `content:encoded` for full content, `dc:creator` for
/// authors without an address, and `atom:link rel="self"`.
enum RSSWriter {
    static func render(_ entries: [MergedEntry], metadata: OutputMetadata) -> String {
        var out = """
            <?xml version="1.0" encoding="utf-8"?>
            <rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" \
            xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/">
            <channel>

            """
        out += XMLText.element("title", metadata.title, indent: "  ")
        out += XMLText.element("link", metadata.link ?? metadata.selfURL ?? metadata.id, indent: "  ")
        out += XMLText.element("description", metadata.title, indent: "  ")
        if let selfURL = metadata.selfURL {
            out += "  <atom:link rel=\"self\" type=\"application/rss+xml\" href=\"\(XMLText.escape(selfURL, attribute: true))\"/>\n"
        }
        out += XMLText.element("lastBuildDate", metadata.updated.rfc822, indent: "  ")
        out += XMLText.element("generator", "\(metadata.generator) \(metadata.generatorVersion)", indent: "  ")
        if let author = metadata.author, let email = author.email {
            out += XMLText.element("managingEditor", author.name.map { "\(email) (\($0))" } ?? email, indent: "  ")
        }
        for item in entries { out += self.item(item) }
        out += "</channel>\n</rss>\n"
        return out
    }

    private static func item(_ item: MergedEntry) -> String {
        let e = item.entry
        var out = "  <item>\n"
        out += XMLText.element("title", item.plainTitle, indent: "    ")
        out += XMLText.element("link", e.link, indent: "    ")
        let id = item.stableID
        let isPermaLink = id == e.link && id.hasPrefix("http")
        out += XMLText.element("guid", id, attributes: [("isPermaLink", isPermaLink ? "true" : "false")], indent: "    ")
        out += XMLText.element("pubDate", item.date.rfc822, indent: "    ")
        for author in e.authors {
            if let email = author.email {
                out += XMLText.element("author", author.name.map { "\(email) (\($0))" } ?? email, indent: "    ")
            } else if let name = author.name {
                out += XMLText.element("dc:creator", name, indent: "    ")
            }
        }
        for category in e.categories {
            out += XMLText.element("category", category.term, attributes: [("domain", category.scheme)], indent: "    ")
        }
        if let description = e.summary ?? e.content.first {
            out += XMLText.element("description", html(description), indent: "    ")
        }
        if let content = e.content.first, e.summary != nil {
            out += XMLText.element("content:encoded", html(content), indent: "    ")
        }
        // RSS 2.0 allows one enclosure per item.
        if let enclosure = e.enclosures.first {
            let attributes: [(String, String?)] = [
                ("url", enclosure.url), ("length", String(enclosure.length ?? 0)), ("type", enclosure.type ?? "application/octet-stream"),
            ]
            out += "    <enclosure\(XMLText.attributeList(attributes))/>\n"
        }
        out += XMLText.element("source", item.source.title ?? item.source.feedURL, attributes: [("url", item.source.feedURL)], indent: "    ")
        return out + "  </item>\n"
    }

    /// RSS descriptions are HTML: plain text is escaped once more.
    private static func html(_ value: Text) -> String {
        value.kind == .text ? XMLText.escape(value.value) : value.value
    }
}
