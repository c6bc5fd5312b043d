/// A file attached to an entry (a podcast episode, an image).
///
/// RSS 2: `enclosure` with `url`, `length`, `type`; Atom: `link rel="enclosure"`
/// with `href`, `length`, `type`; Media RSS: `media:content`;
/// JSON Feed: `attachments` with `url`, `size_in_bytes`, `mime_type`.
public struct Enclosure: Sendable, Hashable {
    public var url: String
    public var length: Int?
    public var type: String?
    /// Playing time in whole seconds. Media RSS: `media:content duration`;
    /// iTunes: the item's `itunes:duration`; JSON Feed: `duration_in_seconds`.
    public var duration: Int?

    public init(url: String, length: Int? = nil, type: String? = nil, duration: Int? = nil) {
        self.url = url
        self.length = length
        self.type = type
        self.duration = duration
    }
}
