import FeedModel

/// Atom 1.0 (RFC 4287). XHTML values are written as escaped HTML
/// (`type="html"`), which every reader handles and no input can break.
enum AtomWriter {
    static func render(_ entries: [MergedEntry], metadata: OutputMetadata) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n"
        out += XMLText.element("title", metadata.title, indent: "  ")
        out += XMLText.element("id", metadata.id, indent: "  ")
        out += XMLText.element("updated", metadata.updated.rfc3339, indent: "  ")
        if let link = metadata.link { out += "  <link rel=\"alternate\" href=\"\(XMLText.escape(link, attribute: true))\"/>\n" }
        if let selfURL = metadata.selfURL {
            out += "  <link rel=\"self\" href=\"\(XMLText.escape(selfURL, attribute: true))\"/>\n"
        }
        // Atom needs an author for every entry: the feed's covers those without.
        out += person("author", metadata.author ?? Person(name: metadata.title), indent: "  ")
        out += XMLText.element(
            "generator", metadata.generator,
            attributes: [("uri", metadata.generatorURI), ("version", metadata.generatorVersion)], indent: "  ")
        for item in entries { out += entry(item) }
        out += "</feed>\n"
        return out
    }

    private static func entry(_ item: MergedEntry) -> String {
        let e = item.entry
        var out = "  <entry>\n"
        out += text("title", e.title ?? Text(""), indent: "    ")
        if let link = e.link { out += "    <link rel=\"alternate\" href=\"\(XMLText.escape(link, attribute: true))\"/>\n" }
        out += XMLText.element("id", item.stableID, indent: "    ")
        // `published` is the date the timeline sorted by; `updated` never before it.
        out += XMLText.element("published", item.date.rfc3339, indent: "    ")
        out += XMLText.element("updated", max(e.updated ?? item.date, item.date).rfc3339, indent: "    ")
        for author in e.authors { out += person("author", author, indent: "    ") }
        for contributor in e.contributors { out += person("contributor", contributor, indent: "    ") }
        for category in e.categories {
            out += "    <category\(XMLText.attributeList([("term", category.term), ("scheme", category.scheme), ("label", category.label)]))/>\n"
        }
        if let summary = e.summary { out += text("summary", summary, indent: "    ") }
        if let content = e.content.first { out += text("content", content, indent: "    ") }
        for enclosure in e.enclosures {
            let attributes: [(String, String?)] = [
                ("rel", "enclosure"), ("href", enclosure.url), ("type", enclosure.type),
                ("length", enclosure.length.map(String.init)),
            ]
            out += "    <link\(XMLText.attributeList(attributes))/>\n"
        }
        if let rights = e.rights { out += text("rights", rights, indent: "    ") }
        out += source(item.source)
        out += "  </entry>\n"
        return out
    }

    private static func text(_ name: String, _ value: Text, indent: String) -> String {
        let type = value.kind == .text ? "text" : "html"
        return "\(indent)<\(name) type=\"\(type)\">\(XMLText.escape(value.value))</\(name)>\n"
    }

    private static func person(_ name: String, _ person: Person, indent: String) -> String {
        var out = "\(indent)<\(name)>\n"
        out += XMLText.element("name", person.name ?? person.email ?? "unknown", indent: indent + "  ")
        out += XMLText.element("email", person.email, indent: indent + "  ")
        out += XMLText.element("uri", person.uri, indent: indent + "  ")
        return out + "\(indent)</\(name)>\n"
    }

    /// Provenance: the feed the entry was copied from (RFC 4287, 4.2.11).
    private static func source(_ source: FeedSource) -> String {
        var out = "    <source>\n"
        out += XMLText.element("id", source.id ?? source.feedURL, indent: "      ")
        out += XMLText.element("title", source.title, indent: "      ")
        if let link = source.link {
            out += "      <link rel=\"alternate\" href=\"\(XMLText.escape(link, attribute: true))\"/>\n"
        }
        out += "      <link rel=\"self\" href=\"\(XMLText.escape(source.feedURL, attribute: true))\"/>\n"
        if let updated = source.updated { out += XMLText.element("updated", updated.rfc3339, indent: "      ") }
        return out + "    </source>\n"
    }
}
