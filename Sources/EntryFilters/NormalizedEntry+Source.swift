import FeedModel

extension NormalizedEntry {
    /// The entry's `source` as reconstitute writes it: the feed's id (else
    /// its link), icon, logo, categories, author (else, when the entry names
    /// none, the subscription's name), contributors, links, rights,
    /// subtitle, title, `updated` (else now), then every `planet:` property
    /// in name order, with `planet:format` and `planet:css-id` made as Venus makes them.
    static func source(of entry: Entry, in feed: FilterFeed, written: inout Written) -> String {
        let metadata = feed.metadata
        var out = "<source>"
        if let id = metadata.id ?? metadata.link ?? feed.url { out += "<id>\(escaped(id))</id>" }
        if let icon = metadata.icon { out += "<icon>\(escaped(icon))</icon>" }
        if let logo = metadata.logo ?? metadata.image { out += "<logo>\(escaped(logo))</logo>" }
        for category in metadata.categories { out += self.category(category) }
        var authors = Array(metadata.authors.prefix(1))
        if authors.first?.name == nil, !written.authors.contains(where: { $0.name != nil }),
            let name = feed.properties["name"]
        {
            var author = authors.first ?? Person()
            author.name = name
            authors = [author]
        }
        written.sourceAuthors = authors
        for author in authors { out += person("author", author) }
        for contributor in metadata.contributors { out += person("contributor", contributor) }
        if let link = metadata.link {
            out += "<link rel=\"alternate\" href=\"\(escaped(link))\" type=\"text/html\"/>"
        }
        if let url = feed.url {
            out += "<link rel=\"self\" href=\"\(escaped(url))\" type=\"\(feed.selfType)\"/>"
        }
        let base = metadata.link
        if let rights = metadata.rights { out += text("rights", rights, base: base) }
        if let subtitle = metadata.subtitle { out += text("subtitle", subtitle, base: base) }
        if let title = metadata.title { out += text("title", title, base: base) }
        out += "<updated>\((metadata.updated ?? metadata.published ?? feed.now).rfc3339)</updated>"
        for (name, value) in planetProperties(of: feed) {
            out += "<planet:\(name)>\(escaped(value))</planet:\(name)>"
        }
        return out + "</source>"
    }

    /// Venus's `planet_*` values of the feed, by name: its options and its
    /// fetch's, its format, and `css-id` from its name.
    private static func planetProperties(of feed: FilterFeed) -> [(String, String)] {
        var properties = feed.properties
        properties["format"] = feed.venusFormat
        if let name = properties["name"], properties["css-id"] == nil { properties["css-id"] = cssID(name) }
        return properties.filter { isXMLName($0.key) }.sorted { $0.key < $1.key }
    }

    /// reconstitute's `cssid`: every run of characters that are not letters,
    /// digits or `_` becomes `-`, in lowercase, without `-` at either end.
    static func cssID(_ name: String) -> String {
        var out = ""
        for character in name.lowercased() {
            if character.isLetter || character.isNumber || character == "_" {
                out.append(character)
            } else if out.last != "-" {
                out.append("-")
            }
        }
        return String(out.drop { $0 == "-" }.reversed().drop { $0 == "-" }.reversed())
    }

    /// A name an element may have after `planet:` (ASCII letters, digits, `_`, `-`, `.`).
    static func isXMLName(_ key: String) -> Bool {
        func letter(_ c: Unicode.Scalar) -> Bool { ("a"..."z").contains(c) || ("A"..."Z").contains(c) || c == "_" }
        guard let first = key.unicodeScalars.first, letter(first) else { return false }
        return key.unicodeScalars.allSatisfy { letter($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "." }
    }
}
