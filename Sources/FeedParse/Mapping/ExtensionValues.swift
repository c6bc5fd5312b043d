import Basics
import FeedModel
import XMLTree

/// Values of extension elements read the same way in a channel and in an
/// item: iTunes images and categories, keywords, Media RSS categories, text,
/// credits and ratings, explicit flags and durations.
extension MappingContext {
    static let itunesScheme = "http://www.itunes.com/"
    /// Media RSS 1.5.1: the scheme of a `media:category` that names none.
    static let mediaCategoryScheme = "http://search.yahoo.com/mrss/category_schema"

    /// `itunes:image`: the `href` the spec names; `url` and text as feeds write it.
    func itunesImage(_ element: DOMElement) -> String? {
        absolute(element.attribute("href") ?? element.attribute("url") ?? text(element), at: element)
    }

    /// `itunes:category text=...`, and each nested sub-category after its parent.
    func itunesCategories(_ element: DOMElement) -> [Category] {
        var result: [Category] = []
        if let term = element.attribute("text")?.trimmingWhitespace, !term.isEmpty {
            result.append(Category(term: term, scheme: Self.itunesScheme))
        }
        for child in element.children where child.namespace == .itunes && child.lowercasedName == "category" {
            result.append(contentsOf: itunesCategories(child))
        }
        return result
    }

    /// Comma-separated keywords (`itunes:keywords`, `media:keywords`), one category each.
    func keywordCategories(_ element: DOMElement, scheme: String?) -> [Category] {
        (text(element) ?? "").split(separator: ",").compactMap { keyword in
            let term = String(keyword).trimmingWhitespace
            return term.isEmpty ? nil : Category(term: term, scheme: scheme)
        }
    }

    /// `media:category`: the text is the term, `scheme` defaults to Media RSS's own.
    func mediaCategory(_ element: DOMElement) -> Category? {
        guard let term = text(element) else { return nil }
        let scheme = element.attribute("scheme")?.trimmingWhitespace
        return Category(
            term: term, scheme: scheme.flatMap { $0.isEmpty ? nil : $0 } ?? Self.mediaCategoryScheme,
            label: element.attribute("label"))
    }

    /// `media:title` and `media:description`: `type="plain"` (the default) or `html`.
    func mediaText(_ element: DOMElement) -> Text? {
        let kind: TextKind = element.attribute("type")?.trimmingWhitespace.lowercased() == "html" ? .html : .text
        return rssText(element, kind: kind)
    }

    /// `media:credit` as a person when its role is one of an author (or not given).
    func mediaCredit(_ element: DOMElement) -> Person? {
        let role = element.attribute("role")?.trimmingWhitespace.lowercased() ?? ""
        guard ["", "author", "creator", "writer", "owner", "uploader", "composer", "artist"].contains(role),
            let value = text(element)
        else { return nil }
        let person = Self.person(fromRSS: value)
        return person.isEmpty ? nil : person
    }

    /// `media:rating` in the `urn:simple` scheme (the default): `adult` or `nonadult`.
    func mediaRating(_ element: DOMElement) -> Bool? {
        let scheme = element.attribute("scheme")?.trimmingWhitespace.lowercased() ?? "urn:simple"
        guard scheme == "urn:simple" else { return nil }
        switch text(element)?.lowercased() {
        case "adult": return true
        case "nonadult": return false
        default: return nil
        }
    }

    /// `itunes:explicit`: `true`/`yes`/`explicit` or `false`/`no`/`clean`.
    static func explicit(_ value: String) -> Bool? {
        switch value.trimmingWhitespace.lowercased() {
        case "true", "yes", "explicit": true
        case "false", "no", "clean": false
        default: nil
        }
    }

    /// A duration in whole seconds: `SS`, `MM:SS`, `HH:MM:SS` (iTunes), or
    /// seconds with a fraction (Media RSS's `duration`). nil for anything else.
    static func seconds(fromDuration value: String) -> Int? {
        let parts = value.trimmingWhitespace.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0
        for (index, part) in parts.enumerated() {
            let isLast = index == parts.count - 1
            let whole = isLast ? (part.split(separator: ".", maxSplits: 1).first ?? "") : part
            guard !whole.isEmpty, whole.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let number = Int(whole),
                number < 1_000_000_000
            else { return nil }
            total = total * 60 + number
        }
        return total
    }
}
