import FeedModel
import Foundation

/// Why a filter cannot be used.
public struct EntryFilterError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// One step of a subscription's filters, run on each entry of its feed
/// when the feed is parsed, before anything is stored or merged (as
/// Venus's input filters run before its cache): an entry a step drops is
/// neither stored nor shown.
public enum EntryFilter: Sendable {
    /// Venus's `filter` (keep only entries whose text matches) and
    /// `exclude` (drop those whose text matches): over the entry's title,
    /// summary, content (as text), categories and authors.
    case text(NSRegularExpression, keep: Bool)
    /// Venus's `regexp_sifter.py`: every `require` pattern must match the
    /// entry's text (with image `alt` and link `title` words), no `exclude` pattern may.
    case regexpSifter(require: [NSRegularExpression], exclude: [NSRegularExpression])
    /// Venus's `xpath_sifter.py`: over the entry's normalized Atom document.
    case xpathSifter(require: [String], exclude: [String])
    /// Venus's `ignore_in_feed`: what the feed says of these is not believed
    /// (`author`, `id`, `updated`, `published`, `xml:lang`, `category`, …).
    case ignore(Set<String>)
    /// A Venus XSLT filter.
    case stylesheet(EntryStylesheetReference)
    /// A Venus filter run natively over the entry's document (`minhead.py`,
    /// `notweets.py`, `coral_cdn_filter.py`) or a `.sed` file run by sed.
    case document(DocumentFilter)

    /// The names `ignore_in_feed` understands.
    public static let ignorable: Set<String> = [
        "author", "contributor", "id", "updated", "published", "xml:lang", "language", "category", "tags",
        "enclosure", "enclosures", "summary", "content", "title", "rights", "link", "links",
    ]

    /// `filter` or `exclude`.
    public static func pattern(_ pattern: String, keep: Bool) throws(EntryFilterError) -> EntryFilter {
        .text(try regex(pattern, for: keep ? "filter" : "exclude"), keep: keep)
    }

    /// `regexp_sifter.py` with its `require` and `exclude` options (one pattern per line).
    public static func regexpSifter(require: String?, exclude: String?) throws(EntryFilterError) -> EntryFilter {
        func patterns(_ text: String?, _ option: String) throws(EntryFilterError) -> [NSRegularExpression] {
            var result: [NSRegularExpression] = []
            for line in (text ?? "").split(separator: "\n") where !line.isEmpty {
                result.append(try regex(String(line), for: "regexp_sifter \(option)"))
            }
            return result
        }
        return .regexpSifter(require: try patterns(require, "require"), exclude: try patterns(exclude, "exclude"))
    }

    /// `xpath_sifter.py` with its `require` and `exclude` options (one expression per line).
    /// - Throws: the first line that is not an XPath expression (a typo would otherwise drop every entry).
    public static func xpathSifter(require: String?, exclude: String?) throws(EntryFilterError) -> EntryFilter {
        func lines(_ text: String?, _ option: String) throws(EntryFilterError) -> [String] {
            let expressions = (text ?? "").split(separator: "\n").map(String.init)
            for expression in expressions where !EntryStylesheet.compiles(expression) {
                throw EntryFilterError("xpath_sifter \(option): not an XPath expression: \(expression)")
            }
            return expressions
        }
        return .xpathSifter(require: try lines(require, "require"), exclude: try lines(exclude, "exclude"))
    }

    /// Seconds an XSLT filter may take over one entry when nothing says otherwise (`--theme-timeout`'s default).
    public static let defaultTimeLimit: Double = 60

    /// An XSLT filter file; `timeLimit` seconds for each entry (`--theme-timeout`).
    public static func stylesheet(path: String, timeLimit: Double = defaultTimeLimit) throws(EntryFilterError)
        -> EntryFilter
    {
        .stylesheet(EntryStylesheetReference(try EntryStylesheet(path: path, timeLimit: timeLimit)))
    }

    private static func regex(_ pattern: String, for option: String) throws(EntryFilterError) -> NSRegularExpression {
        do {
            return try NSRegularExpression(pattern: pattern)
        } catch {
            throw EntryFilterError("\(option): not a regular expression: \(pattern)")
        }
    }
}

/// A compiled XSLT filter, compared by identity.
public struct EntryStylesheetReference: Sendable {
    let stylesheet: EntryStylesheet
    init(_ stylesheet: EntryStylesheet) { self.stylesheet = stylesheet }
    public var path: String { stylesheet.path }
}

/// A subscription's filters, in order: Venus runs the planet's first, then
/// the feed's own.
public struct EntryFilters: Sendable, Hashable {
    public var steps: [EntryFilter]
    /// Names each step for `Hashable` (what a subscription is compared by).
    private var names: [String]

    public init(_ steps: [EntryFilter] = [], names: [String] = []) {
        self.steps = steps
        self.names = names
    }

    public var isEmpty: Bool { steps.isEmpty }

    public static func == (lhs: EntryFilters, rhs: EntryFilters) -> Bool { lhs.names == rhs.names }
    public func hash(into hasher: inout Hasher) { hasher.combine(names) }

    /// Runs every step on each entry of `feed`; says in its warnings how
    /// many were left out, which stylesheets failed (an entry a stylesheet
    /// fails on goes on as it was), and which one ran out of time here (it
    /// is then not run again: said once, on the feed where it stopped).
    /// - Parameters:
    ///   - feedURL: where the feed was read from (the entry's `source`).
    ///   - properties: Venus's `planet_*` values of the subscription without
    ///     their prefix (`name`, `http_status`, its options): the `planet:`
    ///     elements of the entry's `source`.
    ///   - now: the run's time, an entry's date of last resort (else the clock's).
    public func apply(
        to feed: inout ParsedFeed, feedURL: String?, properties: [String: String] = [:], now: Timestamp? = nil
    ) {
        guard !steps.isEmpty else { return }
        let before = feed.entries.count
        let metadata = FilterFeed(
            metadata: feed.metadata, format: feed.format, url: feedURL, properties: properties,
            now: now ?? Timestamp(secondsSince1970: Int64(Date().timeIntervalSince1970)))
        var failures: [String: Int] = [:]
        var stopped: [String: Double] = [:]
        feed.entries = feed.entries.compactMap { entry in
            var entry = entry
            for step in steps {
                switch Self.run(step, on: entry, feed: metadata) {
                case .kept(let next): entry = next
                case .dropped: return nil
                case .failed(let path): failures[path, default: 0] += 1
                case .stopped(let path, let seconds, let now): if now { stopped[path] = seconds }
                }
            }
            return entry
        }
        if feed.entries.count < before {
            feed.warnings.append("\(before - feed.entries.count) of its entries left out by its filters")
        }
        for (path, count) in failures.sorted(by: { $0.key < $1.key }) {
            feed.warnings.append("filter \(path) failed on \(count) of its entries, which stay as they were")
        }
        for (path, seconds) in stopped.sorted(by: { $0.key < $1.key }) {
            let limit = seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
            feed.warnings.append(
                "filter \(path) stopped after \(limit), its time limit (--theme-timeout): not run again by "
                    + "this process; the entries it did not finish stay as they were")
        }
    }

    /// Whether a warning says a filter failed or was stopped: entries then
    /// went on unfiltered, which a run says at its default verbosity.
    public static func isTrouble(_ warning: String) -> Bool { warning.hasPrefix("filter ") }

    enum StepResult {
        case kept(Entry)
        case dropped
        case failed(String)
        /// The stylesheet ran out of time: on this entry (`now`), or before.
        case stopped(String, seconds: Double, now: Bool)
    }

    private static func run(_ step: EntryFilter, on entry: Entry, feed: FilterFeed) -> StepResult {
        func keep(_ entry: Entry?) -> StepResult { entry.map { .kept($0) } ?? .dropped }
        switch step {
        case .text(let pattern, let keepMatching):
            return keep(matches(pattern, EntryText.of(entry)) == keepMatching ? entry : nil)
        case .regexpSifter(let require, let exclude):
            let text = EntryText.of(entry, withAttributes: true)
            guard require.allSatisfy({ matches($0, text) }), !exclude.contains(where: { matches($0, text) }) else {
                return .dropped
            }
            return .kept(entry)
        case .xpathSifter(let require, let exclude):
            let document = NormalizedEntry.document(entry, in: feed).text
            // An expression that cannot be evaluated (an unbound prefix) is a failure, said, not a silent drop.
            do {
                for expression in require where try !EntryStylesheet.holds(expression, in: document) {
                    return .dropped
                }
                for expression in exclude where try EntryStylesheet.holds(expression, in: document) {
                    return .dropped
                }
            } catch {
                return .failed("xpath_sifter.py")
            }
            return .kept(entry)
        case .ignore(let names):
            return .kept(ignoring(names, in: entry, feed: feed))
        case .document(let filter):
            return run(filter, on: entry, feed: feed)
        case .stylesheet(let reference):
            let written = NormalizedEntry.document(entry, in: feed)
            switch reference.stylesheet.transform(written.text) {
            case .dropped: return .dropped
            case .failed: return .failed(reference.path)
            case .stopped(let now):
                return .stopped(reference.path, seconds: reference.stylesheet.timeLimit, now: now)
            case .entry(let result):
                // A result that is not an entry: nothing to show.
                guard
                    var filtered = NormalizedEntry.read(
                        result, base: entry.link ?? feed.metadata.link, written: written, original: entry)
                else {
                    return .dropped
                }
                // What the normalized form does not carry stays as the feed gave it.
                filtered.comments = entry.comments
                filtered.image = entry.image
                filtered.explicit = entry.explicit
                return .kept(filtered)
            }
        }
    }

    private static func matches(_ pattern: NSRegularExpression, _ text: String) -> Bool {
        pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    /// What Venus's `scrub` leaves of an entry: the names are its feed
    /// parser's, in which an RSS item's `pubDate` and `dc:date` are `updated`.
    private static func ignoring(_ names: Set<String>, in entry: Entry, feed: FilterFeed) -> Entry {
        var entry = entry
        for name in names {
            switch name {
            case "author": entry.authors = []
            case "contributor": entry.contributors = []
            case "id": entry.id = nil
            case "updated":
                entry.updated = nil
                if feed.isRSS { entry.published = nil }
            case "published": entry.published = nil
            case "xml:lang", "language": entry.language = nil
            case "category", "tags": entry.categories = []
            case "enclosure", "enclosures": entry.enclosures = []
            case "summary": entry.summary = nil
            case "content": entry.content = []
            case "title": entry.title = nil
            case "rights": entry.rights = nil
            case "link", "links": entry.link = nil
            default: break
            }
        }
        return entry
    }
}
