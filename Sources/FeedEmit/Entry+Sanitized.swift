import FeedModel
import HTMLSanitizer

extension Text {
    /// Markup (HTML or XHTML) made safe, as HTML; plain text as it is.
    public func sanitized(base: String?) -> Text {
        kind == .text ? self : Text(HTMLSanitizer.sanitize(value, base: base), kind: .html)
    }
}

extension Entry {
    /// The entry with every markup value sanitized (`--sanitize`): title,
    /// summary, content and rights, each resolved against `base`.
    public func sanitized(base: String?) -> Entry {
        var entry = self
        entry.title = title?.sanitized(base: base)
        entry.summary = summary?.sanitized(base: base)
        entry.content = content.map { $0.sanitized(base: base) }
        entry.rights = rights?.sanitized(base: base)
        return entry
    }
}
