import FeedModel
import XMLTree

/// The text an entry's readers see, which `filter`, `exclude` and the
/// regexp sifter search: title, summary and content with their markup
/// taken out, then category terms and labels and author names, one space
/// between each. With `withAttributes`, also the words markup carries in
/// `alt`, `title` and `label` attributes (as Venus's regexp sifter keeps them).
enum EntryText {
    static func of(_ entry: Entry, withAttributes: Bool = false) -> String {
        var parts: [String] = []
        for text in [entry.title, entry.summary].compactMap({ $0 }) + entry.content {
            parts.append(text.kind == .text ? text.value : plain(text.value, withAttributes: withAttributes))
        }
        for category in entry.categories { parts.append(category.label ?? category.term) }
        for author in entry.authors { if let name = author.name { parts.append(name) } }
        return parts.joined(separator: " ").split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Markup as text: tags become spaces, character references are read.
    static func plain(_ markup: String, withAttributes: Bool) -> String {
        var out = ""
        var index = markup.startIndex
        while index < markup.endIndex {
            if markup[index] == "<", let close = markup[index...].firstIndex(of: ">") {
                out += withAttributes ? " " + attributeWords(markup[index...close]) + " " : " "
                index = markup.index(after: close)
            } else {
                out.append(markup[index])
                index = markup.index(after: index)
            }
        }
        return CharacterReferences.decode(out, html: true)
    }

    /// The values of `alt`, `title` and `label` in one tag.
    private static func attributeWords(_ tag: Substring) -> String {
        var words: [String] = []
        for name in ["alt", "title", "label", "term"] {
            for quote in ["\"", "'"] {
                guard let start = tag.range(of: " \(name)=\(quote)") else { continue }
                let rest = tag[start.upperBound...]
                if let end = rest.firstIndex(of: Character(quote)) { words.append(String(rest[..<end])) }
            }
        }
        return words.joined(separator: " ")
    }
}
