import FeedModel
import HTMLSanitizer

extension ParsedFeed {
    /// The feed with every HTML or XHTML text construct through the sanitizer
    /// (`parse --sanitize`): feed title, subtitle and rights; entry title,
    /// summary, content and rights, as feedparser sanitizes them. Plain-text
    /// values are left alone (they are escaped wherever they are written).
    /// Relative URLs were already resolved by the parse, so no base is passed.
    func sanitized() -> ParsedFeed {
        var feed = self
        feed.metadata.title = feed.metadata.title.map(Self.sanitized)
        feed.metadata.subtitle = feed.metadata.subtitle.map(Self.sanitized)
        feed.metadata.rights = feed.metadata.rights.map(Self.sanitized)
        for index in feed.entries.indices {
            feed.entries[index].title = feed.entries[index].title.map(Self.sanitized)
            feed.entries[index].summary = feed.entries[index].summary.map(Self.sanitized)
            feed.entries[index].content = feed.entries[index].content.map(Self.sanitized)
            feed.entries[index].rights = feed.entries[index].rights.map(Self.sanitized)
        }
        return feed
    }

    private static func sanitized(_ text: Text) -> Text {
        guard text.kind != .text else { return text }
        return Text(HTMLSanitizer.sanitize(text.value), kind: text.kind)
    }
}
