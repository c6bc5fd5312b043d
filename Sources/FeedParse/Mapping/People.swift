import FeedModel
import XMLTree

extension MappingContext {
    /// An Atom person construct (`author`, `contributor`): `name`, `email`, `uri` (0.3: `url`).
    func atomPerson(_ element: DOMElement) -> Person? {
        var person = Person()
        for child in element.children {
            switch child.name {
            case "name": person.name = text(child)
            case "email": person.email = text(child)
            case "uri", "url", "homepage": person.uri = absolute(text(child), at: child)
            default: break
            }
        }
        if person.isEmpty, let name = text(element) { person.name = name }
        return person.isEmpty ? nil : person
    }

    /// An RSS-style person: `jo@example.com (Jo Smith)`, `Jo Smith <jo@example.com>`,
    /// a bare address, or a bare name.
    static func person(fromRSS value: String) -> Person {
        var text = value.trimmingWhitespace
        var name: String? = nil
        var email: String? = nil
        if text.hasSuffix(")"), let open = text.lastIndex(of: "(") {
            let inside = String(text[text.index(after: open)..<text.index(before: text.endIndex)]).trimmingWhitespace
            let outside = String(text[..<open]).trimmingWhitespace
            // `me@example.com (Me)` or `Me (me@example.com)`: the part with an @ is the address.
            if inside.utf8.contains(UInt8(ascii: "@")) && !outside.utf8.contains(UInt8(ascii: "@")) {
                return Person(name: outside.isEmpty ? nil : outside, email: inside)
            }
            name = inside
            text = outside
        }
        if text.hasSuffix(">"), let open = text.lastIndex(of: "<") {
            email = String(text[text.index(after: open)..<text.index(before: text.endIndex)]).trimmingWhitespace
            text = String(text[..<open]).trimmingWhitespace
            if name == nil, !text.isEmpty { name = text.trimmingCharacters(quotes: true) }
        } else if text.utf8.contains(UInt8(ascii: "@")), !text.utf8.contains(UInt8(ascii: " ")) {
            email = text.hasPrefix("mailto:") ? String(text.dropFirst(7)) : text
        } else if !text.isEmpty {
            if name == nil { name = text } else { email = text }
        }
        return Person(name: name?.isEmpty == true ? nil : name, email: email?.isEmpty == true ? nil : email)
    }
}

extension String {
    func trimmingCharacters(quotes: Bool) -> String {
        var s = Substring(self)
        while let f = s.first, f == "\"" || f == "'" { s = s.dropFirst() }
        while let l = s.last, l == "\"" || l == "'" { s = s.dropLast() }
        return String(s)
    }
}
