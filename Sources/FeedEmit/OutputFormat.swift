import Basics
import FeedModel
import TextOutput

/// The formats feedmerge writes.
public enum OutputFormat: String, Sendable, CaseIterable {
    case atom, rss, json

    /// What a file name says it holds.
    public enum Recognition: Equatable, Sendable {
        case format(OutputFormat)
        /// An HTML page (`index.html`): the planet page.
        case page
        /// An OPML file (`subscriptions.opml`): the subscription list.
        case subscriptionList
        /// `.xml` with no hint, or anything else: the user must say.
        case unknown
    }

    /// From a file name: `.atom`, `.rss`, `.json`; an `.xml` name that says
    /// which (`atom.xml`, `rss.xml`, `feed-rss.xml`); `.html` is a page,
    /// `.opml` the subscription list.
    public static func recognise(fileName: String) -> Recognition {
        let name = fileName.split(separator: "/").last.map { $0.lowercased() } ?? ""
        guard let dot = name.lastIndex(of: ".") else { return .unknown }
        let stem = name[..<dot]
        switch name[name.index(after: dot)...] {
        case "atom": return .format(.atom)
        case "rss": return .format(.rss)
        case "json": return .format(.json)
        case "html", "htm": return .page
        case "opml": return .subscriptionList
        case "xml":
            // The words of the name (`feed-atom`, `rss_2`), not any letters in it (`anatomy`).
            let words = stem.split { !$0.isLetter }
            let atom = words.contains("atom")
            let rss = words.contains("rss")
            if atom != rss { return .format(atom ? .atom : .rss) }
            return .unknown
        default: return .unknown
        }
    }

    /// The whole document for a timeline, as text.
    public func render(_ entries: [MergedEntry], metadata: OutputMetadata) -> String {
        String(decoding: renderBytes(entries, metadata: metadata), as: UTF8.self)
    }

    /// The whole document for a timeline, as UTF-8 bytes, in memory (the
    /// merge command streams instead: `render(_:metadata:into:)`).
    public func renderBytes(_ entries: [MergedEntry], metadata: OutputMetadata) -> [UInt8] {
        var out = TextBuffer()
        render(entries, metadata: metadata, into: &out)
        return out.bytes
    }

    /// The whole document for a timeline, appended to `out` (a streaming
    /// buffer drains between entries; the caller flushes the rest).
    public func render(_ entries: [MergedEntry], metadata: OutputMetadata, into out: inout TextBuffer) {
        switch self {
        case .atom: AtomWriter.render(entries, metadata: metadata, into: &out)
        case .rss: RSSWriter.render(entries, metadata: metadata, into: &out)
        case .json: JSONFeedWriter.render(entries, metadata: metadata, into: &out)
        }
    }
}

extension Array where Element == MergedEntry {
    /// A pointer to each entry in turn, in the array's own storage. A
    /// writer reads the fields it needs through it: passing an entry by
    /// value copies it whole (a retain and a release per field), since the
    /// compiler cannot prove the writer's raw-memory output leaves it alone.
    public func forEachInPlace(_ body: (UnsafePointer<MergedEntry>) -> Void) {
        withUnsafeBufferPointer { entries in
            for index in entries.indices { body(entries.baseAddress! + index) }
        }
    }
}

extension UnsafePointer where Pointee == MergedEntry {
    /// An id for formats that require one: the entry's id, else its link,
    /// else a tag URI from the feed URL and the entry's title and date.
    public var stableID: String {
        if let id = pointee.entry.id, !id.isEmpty { return id }
        if let link = pointee.entry.link, !link.isEmpty { return link }
        let title = pointee.entry.title?.value ?? ""
        let hash = FNV1a.hash(pointee.source.feedURL + "\n" + title + "\n" + pointee.date.rfc3339)
        return "urn:feedmerge:entry:\(String(hash, radix: 16))"
    }

    /// The title as plain text.
    public var plainTitle: String? {
        guard let title = pointee.entry.title else { return nil }
        return title.kind == .text ? title.value : PlainText.from(html: title.value)
    }
}
