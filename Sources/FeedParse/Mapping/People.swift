import Basics
import FeedModel
import XMLTree

extension MappingContext {
    /// An Atom person construct (`author`, `contributor`): `name`, `email`, `uri`
    /// (0.3: `url`; the pre-0.3 drafts: `homepage`). A construct with no child
    /// elements but text is read as a person string.
    func atomPerson(_ element: DOMElement) -> Person? {
        var person = Person()
        var hasChildren = false
        for child in element.children {
            hasChildren = true
            switch child.lowercasedName {
            case "name": person.name = person.name ?? text(child)
            case "email": person.email = person.email ?? text(child).map(Self.strippingMailto)
            case "uri", "url", "homepage": person.uri = person.uri ?? absolute(text(child), at: child)
            default: break
            }
        }
        if !hasChildren, let value = text(element) { person = Self.person(fromRSS: value) }
        return person.isEmpty ? nil : person
    }

    /// A person element of RSS or an extension (`author`, `managingEditor`,
    /// `dc:creator`, `itunes:author`): usually a string, but some feeds give
    /// it children as Atom does (`<author><name>…</name><title>…</title>`):
    /// then the name (and email, page) are read from them, not every
    /// child's text run together; with no such child, its text.
    func rssPerson(_ element: DOMElement) -> Person? {
        if !element.children.contains(where: { _ in true }) { return text(element).map(Self.person(fromRSS:)) }
        if let person = atomPerson(element) { return person }
        return text(element).map(Self.person(fromRSS:))
    }

    /// A person written as one string, as RSS `author`, `managingEditor`,
    /// `dc:creator`, `itunes:author` and `media:credit` have it. The forms:
    ///
    /// - `Jo Smith <jo@example.com>` (RFC 5322's name-addr);
    /// - `jo@example.com (Jo Smith)` (RSS 2.0's own example), or the other
    ///   way round, `Jo Smith (jo@example.com)`;
    /// - a bare address, `jo@example.com` or `mailto:jo@example.com`;
    /// - anything else is a name, the whole string: `Nick Ames (now), Ed Aarons
    ///   and Ben Fisher (earlier)` is one name, not a name and an "email".
    ///
    /// An email is only ever a string `Person.isAddress` accepts.
    static func person(fromRSS value: String) -> Person {
        let text = value.trimmingWhitespace
        guard !text.isEmpty else { return Person() }
        if let address = address(in: text) { return Person(email: address) }
        // name <address>
        if text.hasSuffix(">"), let open = text.lastIndex(of: "<") {
            let inside = text[text.index(after: open)..<text.index(before: text.endIndex)]
            if let address = address(in: String(inside).trimmingWhitespace) {
                let name = String(text[..<open]).trimmingWhitespace.trimming("\"'").trimmingWhitespace
                return Person(name: name.isEmpty ? nil : name, email: address)
            }
        }
        // address (name) or name (address)
        if text.hasSuffix(")"), let open = text.lastIndex(of: "(") {
            let inside = String(text[text.index(after: open)..<text.index(before: text.endIndex)]).trimmingWhitespace
            let outside = String(text[..<open]).trimmingWhitespace
            if let address = address(in: outside) {
                return Person(name: inside.isEmpty ? nil : inside, email: address)
            }
            if let address = address(in: inside) {
                let name = outside.trimming("\"'").trimmingWhitespace
                return Person(name: name.isEmpty ? nil : name, email: address)
            }
        }
        return Person(name: text)
    }

    /// The address `text` is, without a `mailto:` prefix; nil when it is not one.
    static func address(in text: String) -> String? {
        let candidate = strippingMailto(text)
        return Person.isAddress(candidate) ? candidate : nil
    }

    static func strippingMailto(_ text: String) -> String {
        let prefix = "mailto:".utf8
        guard text.utf8.count > 7, zip(text.utf8, prefix).allSatisfy({ $0 | 0x20 == $1 }) else { return text }
        return String(text.dropFirst(7)).trimmingWhitespace
    }
}

/// A person written as one string (`Jo Smith <jo@example.com>`,
/// `jo@example.com (Jo Smith)`, a bare address, or a name), read the way
/// RSS person elements are (`MappingContext.person(fromRSS:)`).
public enum PersonText {
    public static func parse(_ text: String) -> Person {
        MappingContext.person(fromRSS: text)
    }
}
