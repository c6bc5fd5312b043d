import FeedModel
import FeedParse

extension NormalizedEntry {
    /// The entry a filter gave back (an Atom `entry` element, its text
    /// constructs as text nodes or XHTML), or nil when it gave nothing (the
    /// entry is dropped) or something that is not one.
    static func read(_ xml: String, base: String?) -> Entry? {
        var body = xml[...]
        if body.hasPrefix("<?xml"), let end = body.range(of: "?>") { body = body[end.upperBound...] }
        guard body.contains("<") else { return nil }
        let wrapped = "<feed xmlns=\"http://www.w3.org/2005/Atom\">" + body + "</feed>"
        guard let feed = try? FeedParser.parse(Array(wrapped.utf8), options: .init(url: base)),
            feed.entries.count == 1
        else { return nil }
        return feed.entries[0]
    }

    /// `read`, with what the document said only as Venus's fallback (an
    /// `id`, `updated`, `xml:lang`, an author's name, the source's author)
    /// read back as the entry had it when the filter left it as written:
    /// a fallback never becomes a fact the feed did not give.
    static func read(_ xml: String, base: String?, written: Written, original: Entry) -> Entry? {
        guard var entry = read(xml, base: base) else { return nil }
        if original.id == nil, entry.id == written.id { entry.id = nil }
        if original.updated == nil, entry.updated == written.updated { entry.updated = nil }
        if original.language == nil, entry.language == written.language { entry.language = nil }
        if entry.authors == written.authors {
            entry.authors = original.authors
        } else if original.authors.isEmpty, entry.authors == written.sourceAuthors {
            entry.authors = []
        }
        if original.title == nil, entry.title?.value.isEmpty != false { entry.title = nil }
        return entry
    }
}
