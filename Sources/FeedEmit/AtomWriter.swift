import FeedModel

/// Atom 1.0 (RFC 4287). XHTML values are written as escaped HTML
/// (`type="html"`), which every reader handles and no input can break.
enum AtomWriter {
    static func render(_ entries: [MergedEntry], metadata: OutputMetadata, into out: inout TextBuffer) {
        out.append("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n")
        out.element("title", metadata.title, indent: "  ")
        out.element("id", metadata.id, indent: "  ")
        out.element("updated", metadata.updated.rfc3339, indent: "  ")
        if let link = metadata.link {
            out.emptyElement("link", attributes: [("rel", "alternate"), ("href", link)], indent: "  ")
        }
        if let selfURL = metadata.selfURL {
            out.emptyElement("link", attributes: [("rel", "self"), ("href", selfURL)], indent: "  ")
        }
        // Atom needs an author for every entry: the feed's covers those without.
        person("author", metadata.author ?? Person(name: metadata.title), indent: "  ", into: &out)
        out.element(
            "generator", metadata.generator,
            attributes: [("uri", metadata.generatorURI), ("version", metadata.generatorVersion)], indent: "  ")
        entries.forEachBorrowed { item in
            entry(item, into: &out)
            out.drainIfFull()
        }
        out.append("</feed>\n")
    }

    private static func entry(_ item: MergedEntry, into out: inout TextBuffer) {
        let e = item.entry
        out.append("  <entry>\n")
        text("title", e.title ?? Text(""), indent: "    ", into: &out)
        if let link = e.link {
            out.emptyElement("link", attributes: [("rel", "alternate"), ("href", link)], indent: "    ")
        }
        out.element("id", item.stableID, indent: "    ")
        // `published` is the date the timeline sorted by; `updated` never before it.
        out.element("published", item.date.rfc3339, indent: "    ")
        out.element("updated", max(e.updated ?? item.date, item.date).rfc3339, indent: "    ")
        for author in e.authors { person("author", author, indent: "    ", into: &out) }
        for contributor in e.contributors { person("contributor", contributor, indent: "    ", into: &out) }
        for category in e.categories {
            out.emptyElement(
                "category",
                attributes: [("term", category.term), ("scheme", category.scheme), ("label", category.label)],
                indent: "    ")
        }
        if let summary = e.summary { text("summary", summary, indent: "    ", into: &out) }
        if let content = e.content.first { text("content", content, indent: "    ", into: &out) }
        for enclosure in e.enclosures {
            out.emptyElement(
                "link",
                attributes: [
                    ("rel", "enclosure"), ("href", enclosure.url), ("type", enclosure.type),
                    ("length", enclosure.length.map(String.init)),
                ], indent: "    ")
        }
        if let rights = e.rights { text("rights", rights, indent: "    ", into: &out) }
        source(item.source, into: &out)
        out.append("  </entry>\n")
    }

    private static func text(_ name: String, _ value: Text, indent: String, into out: inout TextBuffer) {
        out.element(name, value.value, attributes: [("type", value.kind == .text ? "text" : "html")], indent: indent)
    }

    private static func person(_ name: String, _ person: Person, indent: String, into out: inout TextBuffer) {
        out.append("\(indent)<\(name)>\n")
        out.element("name", person.name ?? person.email ?? "unknown", indent: indent + "  ")
        out.element("email", person.email, indent: indent + "  ")
        out.element("uri", person.uri, indent: indent + "  ")
        out.append("\(indent)</\(name)>\n")
    }

    /// Provenance: the feed the entry was copied from (RFC 4287, 4.2.11).
    private static func source(_ source: FeedSource, into out: inout TextBuffer) {
        out.append("    <source>\n")
        out.element("id", source.id ?? source.feedURL, indent: "      ")
        out.element("title", source.title, indent: "      ")
        if let link = source.link {
            out.emptyElement("link", attributes: [("rel", "alternate"), ("href", link)], indent: "      ")
        }
        out.emptyElement("link", attributes: [("rel", "self"), ("href", source.feedURL)], indent: "      ")
        if let updated = source.updated { out.element("updated", updated.rfc3339, indent: "      ") }
        out.append("    </source>\n")
    }
}
