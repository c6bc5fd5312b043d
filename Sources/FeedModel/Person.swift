/// An author or contributor.
///
/// Atom: `author`/`contributor` with `name`, `email`, `uri`; RSS 2: `author`
/// (an email, often with the name in parentheses) and `dc:creator`;
/// iTunes: `itunes:author`; JSON Feed: `authors` with `name` and `url`.
public struct Person: Sendable, Hashable, Codable {
    public var name: String?
    public var email: String?
    public var uri: String?

    public init(name: String? = nil, email: String? = nil, uri: String? = nil) {
        self.name = name
        self.email = email
        self.uri = uri
    }

    /// Whether the person carries nothing at all.
    public var isEmpty: Bool { name == nil && email == nil && uri == nil }
}
