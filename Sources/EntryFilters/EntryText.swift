import FeedModel

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

    /// Markup as text: tags become spaces, the five XML references and
    /// numeric ones are read.
    static func plain(_ markup: String, withAttributes: Bool) -> String {
        var out = ""
        var index = markup.startIndex
        while index < markup.endIndex {
            let character = markup[index]
            if character == "<", let close = markup[index...].firstIndex(of: ">") {
                if withAttributes { out += " " + attributeWords(markup[index...close]) + " " } else { out += " " }
                index = markup.index(after: close)
            } else if character == "&", let semicolon = markup[index...].prefix(12).firstIndex(of: ";") {
                let name = markup[markup.index(after: index)..<semicolon]
                out += reference(name) ?? String(markup[index...semicolon])
                index = markup.index(after: semicolon)
            } else {
                out.append(character)
                index = markup.index(after: index)
            }
        }
        return out
    }

    private static func reference(_ name: Substring) -> String? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        case "nbsp": return " "
        default:
            guard name.first == "#" else { return nil }
            let digits = name.dropFirst()
            let value =
                digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
            return value.flatMap(Unicode.Scalar.init).map { String(Character($0)) }
        }
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
