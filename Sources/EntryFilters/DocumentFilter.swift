import Foundation

/// A Venus filter that reads a document's text and writes another: run
/// on each entry's normalized Atom document (`NormalizedEntry`), or on a
/// template's written page (`[index.html.xslt] filters = …`).
public struct DocumentFilter: Sendable {
    enum Kind: Sendable {
        /// `minhead.py?min=N`.
        case headings(lowest: Int)
        /// `notweets.py`.
        case noTweets
        /// `coral_cdn_filter.py`.
        case coralCDN
        /// Any `.sed` file.
        case sed(SedScript)
        /// An XSLT file, over a page (an entry's runs as `EntryFilter.stylesheet`).
        case stylesheet(EntryStylesheet)
    }

    let kind: Kind
    /// The filter as warnings name it.
    public let name: String

    /// Venus's `minhead.py`, with its `min` option (3 unless told).
    public static func headings(min: String?, name: String = "minhead.py") throws(EntryFilterError) -> DocumentFilter {
        guard let text = min else { return DocumentFilter(kind: .headings(lowest: 3), name: name) }
        guard let lowest = Int(text.trimmingCharacters(in: .whitespaces)) else {
            throw EntryFilterError("minhead.py min: not a whole number: \(text)")
        }
        return DocumentFilter(kind: .headings(lowest: lowest), name: name)
    }

    /// Venus's `notweets.py`.
    public static let noTweets = DocumentFilter(kind: .noTweets, name: "notweets.py")

    /// Venus's `coral_cdn_filter.py`.
    public static let coralCDN = DocumentFilter(kind: .coralCDN, name: "coral_cdn_filter.py")

    /// A `.sed` file, run by sed with `timeLimit` seconds for each document.
    public static func sed(path: String, timeLimit: Double) throws(EntryFilterError) -> DocumentFilter {
        DocumentFilter(kind: .sed(try SedScript(path: path, timeLimit: timeLimit)), name: path)
    }

    /// An XSLT file over a whole page.
    public static func stylesheet(path: String, timeLimit: Double) throws(EntryFilterError) -> DocumentFilter {
        DocumentFilter(kind: .stylesheet(try EntryStylesheet(path: path, timeLimit: timeLimit)), name: path)
    }

    /// What a filter made of a document.
    public enum Outcome: Sendable, Equatable {
        /// Another text.
        case text(String)
        /// The same document.
        case unchanged
        /// Nothing (Venus then drops the entry).
        case empty
        /// It failed, and why: the document stays as it was.
        case failed(String)
        /// It ran out of time, on this document (`now`) or before: the document stays as it was.
        case stopped(now: Bool)
    }

    /// Seconds the filter may take over one document, when it is a program or a stylesheet.
    public var timeLimit: Double {
        switch kind {
        case .sed(let script): script.timeLimit
        case .stylesheet(let stylesheet): stylesheet.timeLimit
        default: 0
        }
    }

    public func apply(to text: String) -> Outcome {
        switch kind {
        case .noTweets:
            // notweets.py looks for this text anywhere in the document: the entry's id or its source's.
            return text.contains("<id>tag:twitter.com,") ? .empty : .unchanged
        case .headings(let lowest):
            guard let document = EditableDocument(parsing: text) else { return .failed("not well-formed XML") }
            guard document.demoteHeadings(lowest: lowest) else { return .unchanged }
            return document.serialized().map { .text($0) } ?? .failed("cannot be written out")
        case .coralCDN:
            guard let document = EditableDocument(parsing: text) else { return .failed("not well-formed XML") }
            guard let changed = document.routeImagesThroughCoral() else {
                return .failed("an img src urlparse refuses")
            }
            guard changed else { return .unchanged }
            return document.serialized().map { .text($0) } ?? .failed("cannot be written out")
        case .sed(let script):
            let outcome = script.run(text)
            if case .text(let result) = outcome, result.allSatisfy(\.isWhitespace) { return .empty }
            return outcome
        case .stylesheet(let stylesheet):
            switch stylesheet.transform(text) {
            case .entry(let result): return result.allSatisfy(\.isWhitespace) ? .empty : .text(result)
            case .dropped: return .empty
            case .failed: return .failed("an XSLT error, or not well-formed XML")
            case .stopped(let now): return .stopped(now: now)
            }
        }
    }
}
