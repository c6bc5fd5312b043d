import EntryFilters
import Foundation
import Subscriptions
import VenusConfig

/// What a run does to its feeds' entries, as options, a Venus
/// configuration or a local OPML list give it, compiled into each
/// subscription's `EntryFilters`:
/// - `filter` and `exclude`: regular expressions over an entry's text;
/// - `ignore_in_feed`: what the feed says that is not believed;
/// - `filters`: Venus's filters by name, in order: XSLT files (`.xslt`),
///   `regexp_sifter.py` and `xpath_sifter.py` (run natively, with Venus's
///   `require` and `exclude` options), `excerpt.py` (its `width` sets the
///   page's excerpts), `minhead.py`, `notweets.py` and `coral_cdn_filter.py`
///   (run natively), `.sed` files (run by sed); other Python filters and
///   plugins are named in a warning (`notRun`).
///
/// The run's own (command line, `[Planet]`) come first, then the feed's.
struct FilterSetup {
    /// `--filter`, `--exclude`, `--ignore-in-feed`, `--entry-filter`.
    struct Request: Hashable {
        var filter: String?
        var exclude: String?
        var ignore: String?
        var filters: [String] = []

        var isEmpty: Bool { self == Request() }
    }

    /// Folders a filter named without a folder is looked for in.
    var folders: [String]
    /// Compiled XSLT and sed filters, by path: each compiled once.
    private var stylesheets: [String: EntryFilter] = [:]
    /// Each distinct chain compiled once, however many feeds share it (a planet's
    /// `exclude` over ten thousand feeds is one regular expression).
    private var chains: [[Request]: EntryFilters] = [:]
    /// Warnings already given.
    private var said: Set<String> = []
    private(set) var warnings: [String] = []
    /// `excerpt.py`'s width, when one is asked for.
    private(set) var excerptWidth: Int?

    /// Seconds an XSLT filter may take over one entry (`--theme-timeout`).
    var timeLimit: Double

    init(folders: [String], timeLimit: Double) {
        self.folders = folders
        self.timeLimit = timeLimit
    }

    /// Sets each subscription's filters: the run's, then its own properties'.
    mutating func apply(_ run: Request, to list: inout SubscriptionList) throws(UsageError) {
        for index in list.subscriptions.indices {
            list.subscriptions[index].filters = try filters(run, properties: list.subscriptions[index].properties)
        }
    }

    /// The run's filters for a subscription without properties of its own (the feeds a state lists).
    mutating func runFilters(_ run: Request) throws(UsageError) -> EntryFilters {
        try filters(run, properties: [:])
    }

    /// The same, once for all the subscriptions that share their properties.
    mutating func apply(_ run: Request, to list: inout PackedSubscriptions) throws(UsageError) {
        try list.changeShared { (shared: inout Subscription) throws(UsageError) in
            shared.filters = try filters(run, properties: shared.properties)
        }
    }

    /// The run's filters, then those a subscription's properties name.
    private mutating func filters(_ run: Request, properties: [String: String]) throws(UsageError) -> EntryFilters {
        var own = Request()
        own.filter = properties["filter"]
        own.exclude = properties["exclude"]
        own.ignore = properties["ignore_in_feed"]
        own.filters = (properties["filters"] ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
        if let known = chains[[run, own]] { return known }
        let chain = try compile(run, own)
        chains[[run, own]] = chain
        return chain
    }

    private mutating func compile(_ run: Request, _ own: Request) throws(UsageError) -> EntryFilters {
        var steps: [EntryFilter] = []
        var names: [String] = []
        // A feed's own filter and exclude replace the run's (Venus's per-section option).
        let ignore = ((own.ignore ?? run.ignore) ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
        if !ignore.isEmpty {
            for name in ignore where !EntryFilter.ignorable.contains(name) {
                warn("ignore_in_feed \(name): not one of \(EntryFilter.ignorable.sorted().joined(separator: ", "))")
            }
            steps.append(.ignore(Set(ignore)))
            names.append("ignore:" + ignore.joined(separator: " "))
        }
        for (pattern, keep) in [(own.filter ?? run.filter, true), (own.exclude ?? run.exclude, false)] {
            guard let pattern, !pattern.isEmpty else { continue }
            do {
                steps.append(try .pattern(pattern, keep: keep))
            } catch {
                throw UsageError(error.description)
            }
            names.append((keep ? "filter:" : "exclude:") + pattern)
        }
        for text in run.filters + own.filters {
            if let step = try step(VenusConfiguration.FilterReference(text)) {
                steps.append(step)
                names.append(text)
            }
        }
        return EntryFilters(steps, names: names)
    }

    private mutating func step(_ reference: VenusConfiguration.FilterReference) throws(UsageError) -> EntryFilter? {
        let name = reference.name
        let base = (name as NSString).lastPathComponent
        switch base {
        case "regexp_sifter.py":
            do {
                return try .regexpSifter(require: reference.options["require"], exclude: reference.options["exclude"])
            } catch {
                throw UsageError(error.description)
            }
        case "xpath_sifter.py":
            do {
                return try .xpathSifter(require: reference.options["require"], exclude: reference.options["exclude"])
            } catch {
                throw UsageError(error.description)
            }
        case "excerpt.py":
            // The page's excerpt (planet:excerpt) is made by feedmerge; its width is the filter's.
            let width = reference.options["width"].flatMap { Int($0) } ?? 500
            excerptWidth = excerptWidth ?? width
            if reference.options["omit"] != nil {
                warn("excerpt.py omit: feedmerge's excerpts are plain text (every tag is omitted)")
            }
            return nil
        default:
            if let native = try Self.nativeFilter(reference) { return .document(native) }
            if let reason = Self.notRun(name, onEntries: true) {
                warn(reason)
                return nil
            }
        }
        let path = try find(name)
        if name.hasSuffix(".sed") {
            if let compiled = stylesheets[path] { return compiled }
            do {
                let compiled = EntryFilter.document(try .sed(path: path, timeLimit: timeLimit))
                stylesheets[path] = compiled
                return compiled
            } catch {
                throw UsageError(error.description)
            }
        }
        if let compiled = stylesheets[path] { return compiled }
        do {
            let compiled = try EntryFilter.stylesheet(path: path, timeLimit: timeLimit)
            stylesheets[path] = compiled
            return compiled
        } catch {
            throw UsageError(error.description)
        }
    }

    mutating func warn(_ message: String) {
        if said.insert(message).inserted { warnings.append(message) }
    }
}
