import FeedModel

extension Enclosure {
    /// The type when it is a media type (`type/subtype`); feeds also write
    /// `""` or `audio`, which Atom's schema refuses.
    public var mediaType: String? {
        guard let type, let slash = type.utf8.firstIndex(of: UInt8(ascii: "/")), slash != type.utf8.startIndex,
            type.utf8.index(after: slash) != type.utf8.endIndex, !type.utf8.contains(UInt8(ascii: " "))
        else { return nil }
        return type
    }
}
