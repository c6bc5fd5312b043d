import FeedModel
import XMLTree
import Basics

/// Turns the bytes of one feed document into the normalized model.
///
/// Detects the format (JSON Feed by its first byte, the XML formats by their
/// root element), maps it, and returns plain `Sendable` values: the libxml2
/// document is freed before this returns.
public enum FeedParser {
    public struct Options: Sendable {
        /// The address the document came from: the base for relative links.
        public var url: String?
        /// The HTTP Content-Type it came with; its charset counts.
        public var contentType: String?
        /// Documents larger than this are refused.
        public var maximumBytes: Int

        public init(url: String? = nil, contentType: String? = nil, maximumBytes: Int = 64 << 20) {
            self.url = url
            self.contentType = contentType
            self.maximumBytes = maximumBytes
        }
    }

    /// - Throws: `ParseError` when the bytes hold no feed at all.
    public static func parse(_ bytes: consuming [UInt8], options: Options = Options()) throws(ParseError) -> ParsedFeed
    {
        guard bytes.count <= options.maximumBytes else {
            throw ParseError(
                stage: .read, message: "document of \(bytes.count) bytes exceeds the limit of \(options.maximumBytes)")
        }
        let context = MappingContext(documentURL: options.url)
        if looksLikeJSON(bytes) {
            var mapper = JSONFeedMapper(context: context)
            return try mapper.map(bytes)
        }
        let document: DOMDocument
        do {
            // The bytes are consumed here: once the tree holds everything, the
            // input is freed before mapping starts.
            document = try DOMDocument(
                parsing: bytes, url: options.url, contentType: options.contentType,
                limits: .init(maximumBytes: options.maximumBytes))
        } catch {
            throw ParseError(stage: error.code == .empty ? .read : .xml, message: error.description)
        }
        var parsed = try map(document, context: context)
        parsed.warnings.insert(contentsOf: document.warnings, at: 0)
        parsed.metadata.language = parsed.metadata.language.flatMap(languageTag)
        for index in parsed.entries.indices where parsed.entries[index].language != nil {
            parsed.entries[index].language = parsed.entries[index].language.flatMap(languageTag)
        }
        return parsed
    }

    /// A language as a BCP 47 tag: `en_US` (a POSIX locale name, written by
    /// mistake for `en-US`) gets its hyphen; blank is none.
    static func languageTag(_ value: String) -> String? {
        let trimmed = value.trimmingWhitespace
        guard !trimmed.isEmpty else { return nil }
        return trimmed.contains("_") ? String(trimmed.map { $0 == "_" ? "-" : $0 }) : trimmed
    }

    private static func map(_ document: DOMDocument, context: MappingContext) throws(ParseError) -> ParsedFeed {
        let root = document.root
        let name = root.name
        switch (root.namespace, name) {
        case (nil, "rss"), (.rss20, "rss"):
            let version = root.attribute("version")?.trimmingWhitespace ?? ""
            return try mapRSS(document, context: context, format: version.hasPrefix("0.9") ? .rss09x : .rss20)
        case (.rdf, "RDF"), (nil, "RDF"):
            let isRSS090 = root.children.contains { $0.namespace == .rss09 }
            return try mapRSS(document, context: context, format: isRSS090 ? .rss09x : .rss10)
        // An Atom Entry Document (root `entry`) is read as a feed of one entry.
        case (.atom, "feed"), (nil, "feed"), (.atom, "entry"):
            var mapper = AtomMapper(context: context)
            return mapper.map(document, format: .atom10)
        case (.atom03, "feed"), (.atom03, "entry"):
            var mapper = AtomMapper(context: context)
            return mapper.map(document, format: .atom03)
        case (nil, _) where name.lowercased() == "channel":
            // Microsoft's Channel Definition Format: `<CHANNEL HREF=...><ITEM ...>`.
            return try mapRSS(document, context: context, format: .cdf)
        default:
            let what = name.lowercased() == "html" ? "an HTML page" : "a <\(name)> document"
            throw ParseError(stage: .detect, message: "not a feed: \(what), not RSS, Atom or JSON Feed")
        }
    }

    private static func mapRSS(
        _ document: DOMDocument, context: MappingContext, format: FeedFormat
    ) throws(ParseError) -> ParsedFeed {
        var mapper = RSSMapper(context: context)
        do {
            return try mapper.map(document, format: format)
        } catch {
            throw ParseError(stage: .xml, message: error.description)
        }
    }

    private static func looksLikeJSON(_ bytes: [UInt8]) -> Bool {
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        while start < bytes.count,
            bytes[start] == 0x20 || bytes[start] == 0x0A || bytes[start] == 0x0D || bytes[start] == 0x09
        {
            start += 1
        }
        return start < bytes.count && bytes[start] == UInt8(ascii: "{")
    }
}
