/// A file attached to an entry (a podcast episode, an image).
///
/// RSS 2: `enclosure` with `url`, `length`, `type`; Atom: `link rel="enclosure"`
/// with `href`, `length`, `type`; Media RSS: `media:content`;
/// JSON Feed: `attachments` with `url`, `size_in_bytes`, `mime_type`.
public struct Enclosure: Sendable, Hashable, Codable {
    public var url: String
    public var length: Int?
    public var type: String?

    public init(url: String, length: Int? = nil, type: String? = nil) {
        self.url = url
        self.length = length
        self.type = type
    }
}
