import FeedModel
import TextOutput

/// Atom 1.0 (RFC 4287). HTML and XHTML values are written as HTML
/// (`type="html"`) in CDATA sections, which every reader handles and no
/// input can break.
enum AtomWriter {
    static func render(_ entries: [MergedEntry], metadata: OutputMetadata, into out: inout TextBuffer) {
        out.append("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n")
        out.element("title", metadata.title, indent: 2)
        out.element("id", metadata.id, indent: 2)
        out.element("updated", metadata.updated, .rfc3339, indent: 2)
        if let link = metadata.link {
            out.emptyElement("link", indent: 2) {
                $0.attribute("rel", "alternate")
                $0.attribute("href", link)
            }
        }
        if let selfURL = metadata.selfURL {
            out.emptyElement("link", indent: 2) {
                $0.attribute("rel", "self")
                $0.attribute("href", selfURL)
            }
        }
        for hub in metadata.hubs {
            out.emptyElement("link", indent: 2) {
                $0.attribute("rel", "hub")
                $0.attribute("href", hub)
            }
        }
        // Atom needs an author for every entry: the feed's covers those without.
        out.atomPerson("author", metadata.author ?? Person(name: metadata.title), indent: 2)
        out.element("generator", metadata.generator, indent: 2) {
            $0.attribute("uri", metadata.generatorURI)
            $0.attribute("version", metadata.generatorVersion)
        }
        entries.forEachInPlace { item in
            entry(item, into: &out)
            out.drainIfFull()
        }
        out.append("</feed>\n")
    }

    private static func entry(_ item: UnsafePointer<MergedEntry>, into out: inout TextBuffer) {
        out.append("  <entry>\n")
        text("title", item.pointee.entry.title ?? Text(""), into: &out)
        if let link = item.pointee.entry.link {
            out.emptyElement("link", indent: 4) {
                $0.attribute("rel", "alternate")
                $0.attribute("href", link)
            }
        }
        out.element("id", item.stableID, indent: 4)
        // `published` is the date the timeline sorted by; `updated` never before it.
        let date = item.pointee.date
        out.element("published", date, .rfc3339, indent: 4)
        out.element("updated", max(item.pointee.entry.updated ?? date, date), .rfc3339, indent: 4)
        for author in item.pointee.entry.authors { out.atomPerson("author", author, indent: 4) }
        for contributor in item.pointee.entry.contributors { out.atomPerson("contributor", contributor, indent: 4) }
        for category in item.pointee.entry.categories {
            out.emptyElement("category", indent: 4) {
                $0.attribute("term", category.term)
                $0.attribute("scheme", category.scheme)
                $0.attribute("label", category.label)
            }
        }
        if let summary = item.pointee.entry.summary { text("summary", summary, into: &out) }
        if let content = item.pointee.entry.content.first { text("content", content, into: &out) }
        for enclosure in item.pointee.entry.enclosures {
            out.emptyElement("link", indent: 4) {
                $0.attribute("rel", "enclosure")
                $0.attribute("href", enclosure.url)
                $0.attribute("type", enclosure.mediaType)
                $0.attribute("length", enclosure.length.map(String.init))
            }
        }
        if let rights = item.pointee.entry.rights { text("rights", rights, into: &out) }
        source(item, into: &out)
        out.append("  </entry>\n")
    }

    /// An entry's text construct, with its type; HTML as a CDATA section.
    private static func text(_ name: StaticString, _ value: Text, into out: inout TextBuffer) {
        if value.kind == .text {
            out.element(name, value.value, indent: 4) { $0.attribute("type", "text") }
        } else {
            out.markupElement(name, value.value, indent: 4) { $0.attribute("type", "html") }
        }
    }

    /// Provenance: the feed the entry was copied from (RFC 4287, 4.2.11).
    private static func source(_ item: UnsafePointer<MergedEntry>, into out: inout TextBuffer) {
        out.append("    <source>\n")
        out.element("id", item.pointee.source.id ?? item.pointee.source.feedURL, indent: 6)
        out.element("title", item.pointee.source.title, indent: 6)
        if let link = item.pointee.source.link {
            out.emptyElement("link", indent: 6) {
                $0.attribute("rel", "alternate")
                $0.attribute("href", link)
            }
        }
        out.emptyElement("link", indent: 6) {
            $0.attribute("rel", "self")
            $0.attribute("href", item.pointee.source.feedURL)
        }
        out.element("updated", item.pointee.source.updated, .rfc3339, indent: 6)
        for author in item.pointee.source.authors { out.atomPerson("author", author, indent: 6) }
        if item.pointee.source.authors.isEmpty && item.pointee.entry.authors.isEmpty {
            // No author anywhere in the source: the feed itself is credited, so that the
            // merged feed's own author (which Atom would otherwise apply) is never.
            let feed = Person(
                name: item.pointee.source.title ?? item.pointee.source.feedURL, uri: item.pointee.source.link)
            out.atomPerson("author", feed, indent: 6)
        }
        for category in item.pointee.source.categories {
            out.emptyElement("category", indent: 6) {
                $0.attribute("term", category.term)
                $0.attribute("scheme", category.scheme)
                $0.attribute("label", category.label)
            }
        }
        out.append("    </source>\n")
    }
}

extension TextBuffer {
    /// An Atom person construct (RFC 4287 3.2): `name` (else the email, the
    /// page, or "unknown": Atom requires one), `email` only when it is an
    /// address, `uri`. The Atom writer's and the planet document's.
    public mutating func atomPerson(_ name: StaticString, _ person: Person, indent: Int) {
        startTag(name, indent: indent)
        append(">\n")
        let email = person.email.flatMap { Person.isAddress($0) ? $0 : nil }
        element("name", person.name ?? email ?? person.uri ?? "unknown", indent: indent + 2)
        element("email", email, indent: indent + 2)
        element("uri", person.uri, indent: indent + 2)
        append(spaces: indent)
        endTag(name)
    }
}
