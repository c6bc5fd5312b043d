/// A category or tag.
///
/// Atom: `category` with `term`, `scheme`, `label`; RSS 2: `category` with
/// `domain` as the scheme; Dublin Core: `dc:subject`; iTunes: `itunes:category`
/// and `itunes:keywords`; JSON Feed: `tags`.
public struct Category: Sendable, Hashable {
    public var term: String
    public var scheme: String?
    public var label: String?

    public init(term: String, scheme: String? = nil, label: String? = nil) {
        self.term = term
        self.scheme = scheme
        self.label = label
    }
}
