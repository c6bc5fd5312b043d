import Aggregator
import FeedEmit
import FeedFetch
import FeedModel
import FeedParse
import FeedState
import Foundation

/// `feedmerge [options] SOURCE...`: the main job. Reads the subscriptions,
/// fetches and parses every feed concurrently, merges the entries into one
/// timeline and writes each `-o` output atomically.
struct MergeCommand {
    static let usage = """
        usage: feedmerge [options] SOURCE... -o OUTPUT [-o OUTPUT...]

        SOURCE is an OPML file or URL (a URL ending in .opml), a feed URL, or a
        local feed file. OUTPUT is a file (format from its extension: .atom, .rss,
        .json; anything else needs --format) or - for standard output.

        Output:
          -o, --output FILE      write the merged feed here (repeatable, each FILE once;
                                 the outputs are written at the same time)
          --format atom|rss|json format for outputs without a known extension
          --title TEXT           the merged feed's title (default: the OPML title)
          --link URL             its home page
          --self-url URL         where it will be published
          --id ID                its Atom id (default: --self-url, --link, or a hash of the sources)
          --author "NAME <EMAIL>" (default: the OPML owner)
        Timeline:
          --limit N              keep the newest N entries (default 1000; 0 = all)
          --per-feed N           at most the newest N entries of each feed
          --since DATE|AGE       drop entries older than a date or an age (30d, 12h, 2w)
          --future keep|clamp|drop  entries dated after the run's time (default clamp)
          --now DATE             the run's time (default: SOURCE_DATE_EPOCH, else the clock)
        Fetching:
          --jobs N               transfers at once (default 32)
          --per-host N           transfers at once per host (default 4)
          --timeout S            seconds per feed (default 60)
          --max-bytes N          largest feed read, decoded (default 16 MiB); a bigger one is cut
                                 there and keeps the entries that arrived whole
          --public-only          refuse loopback, private and link-local addresses
        State (on by default; see the README):
          --state PATH           the state file (default $XDG_STATE_HOME/feedmerge/state.sqlite)
          --no-state             a one-off run: nothing remembered, nothing reused
          --force                fetch feeds that are gone or asked to be left alone for now
          --keep-days N          keep entries a feed no longer lists for N days (default 90)
          --keep-per-feed N      and at most the newest N stored per feed (default 200)
          --new-feed-items N     a new feed's undated entries beyond its first N are dated as
                                 history, not news (default 10)
          --health FILE          write the per-feed health report (JSON) here
          --update-opml          write permanent redirects (301/308) back into local OPML files
        Reporting:
          -q, --quiet            no progress and no summary (failures still go to stderr)
          -v, --verbose          also each feed's parse warnings and each duplicate merged

        Undated entries (and those whose date cannot be read, which the run names)
        are dated by their first sight with a state, else by their feed's own date,
        else the run's time. Within one feed, different ids are different entries;
        across feeds, the same id (a URI: tag:, urn:, http:) or else the same link
        once normalized (the #fragment counts) is one entry, kept once, from the
        feed where it is dated earliest. Entries that name no author are credited
        to their feed's authors.

        Exit codes: 0 every feed fine; 1 some feeds failed, outputs written;
        2 usage or subscription-list error; 3 no output written; 75 another run
        holds the state's lock (nothing was touched).

        Examples:
          feedmerge feeds.opml -o merged.atom
          feedmerge feeds.opml -o site/atom.xml --format atom -o site/feed.json --title "Planet Example"
          feedmerge https://blog.example.org/feed.xml notes.rss -o - --format rss
        """

    var sources: [String] = []
    var outputs: [(path: String, format: OutputFormat)] = []
    var title: String?
    var link: String?
    var selfURL: String?
    var id: String?
    var author: Person?
    var rules: TimelineRules
    var fetch = FetchConfiguration(userAgent: "feedmerge/\(feedmergeVersion) (+https://github.com/feedmerge/feedmerge)")
    var quiet = false
    var verbose = false
    var statePath: String?
    var force = false
    var keepDays = 90
    var keepPerFeed = 200
    var healthPath: String?
    var updateOPML = false
    var newFeedItems = 10

    init(arguments: ArraySlice<String>, environment: [String: String]) throws(UsageError) {
        var rest = arguments
        var format: OutputFormat?
        var outputPaths: [String] = []
        var since: String?
        var now = Timestamp(secondsSince1970: Int64(Date().timeIntervalSince1970))
        if let epoch = environment["SOURCE_DATE_EPOCH"].flatMap(Int64.init) { now = Timestamp(secondsSince1970: epoch) }
        var limit: Int? = 1000
        var perFeed: Int?
        var future = TimelineRules.FuturePolicy.clamp
        var useState = true
        var chosenState: String?
        func value(_ option: String) throws(UsageError) -> String {
            guard let value = rest.popFirst() else { throw UsageError("\(option) needs a value") }
            return value
        }
        func number(_ option: String) throws(UsageError) -> Int {
            guard let n = Int(try value(option)), n >= 0 else { throw UsageError("\(option) needs a number") }
            return n
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "-o", "--output": outputPaths.append(try value(argument))
            case "--format":
                let name = try value(argument)
                guard let chosen = OutputFormat(rawValue: name) else { throw UsageError("unknown format \(name)") }
                format = chosen
            case "--title": title = try value(argument)
            case "--link": link = try value(argument)
            case "--self-url": selfURL = try value(argument)
            case "--id": id = try value(argument)
            case "--author": author = Self.person(try value(argument))
            case "--limit": limit = try number(argument)
            case "--per-feed": perFeed = try number(argument)
            case "--since": since = try value(argument)
            case "--future":
                let name = try value(argument)
                guard let chosen = TimelineRules.FuturePolicy(rawValue: name) else {
                    throw UsageError("--future is keep, clamp or drop")
                }
                future = chosen
            case "--now":
                let text = try value(argument)
                guard let date = DateParser.parse(text) else { throw UsageError("--now: unreadable date \(text)") }
                now = date
            case "--jobs": fetch.maximumConcurrentTransfers = max(1, try number(argument))
            case "--per-host": fetch.maximumTransfersPerHost = max(1, try number(argument))
            case "--timeout": fetch.totalTimeoutSeconds = max(1, try number(argument))
            case "--max-bytes": fetch.maximumBodyBytes = max(1, try number(argument))
            case "--public-only": fetch.addressPolicy = .publicOnly
            case "--state": chosenState = try value(argument)
            case "--no-state": useState = false
            case "--force": force = true
            case "--keep-days": keepDays = try number(argument)
            case "--keep-per-feed": keepPerFeed = try number(argument)
            case "--health": healthPath = try value(argument)
            case "--update-opml": updateOPML = true
            case "--new-feed-items": newFeedItems = try number(argument)
            case "-q", "--quiet": quiet = true
            case "-v", "--verbose": verbose = true
            case "-h", "--help": throw UsageError(nil)
            default:
                if argument.hasPrefix("-") && argument != "-" { throw UsageError("unknown option \(argument)") }
                sources.append(argument)
            }
        }
        guard !sources.isEmpty else { throw UsageError("no SOURCE given") }
        guard !outputPaths.isEmpty else { throw UsageError("no output given (-o FILE)") }
        // Outputs are written at the same time: two into one place would mix.
        if let repeated = outputPaths.first(where: { path in outputPaths.filter { $0 == path }.count > 1 }) {
            throw UsageError("\(repeated == "-" ? "standard output" : repeated) is given as an output twice")
        }
        for path in outputPaths {
            guard let chosen = (path == "-" ? nil : OutputFormat(fileName: path)) ?? format else {
                throw UsageError("cannot tell the format of \(path): use .atom, .rss or .json, or --format")
            }
            outputs.append((path, chosen))
        }
        if useState {
            statePath = chosenState ?? Self.defaultStatePath(environment)
        }
        rules = TimelineRules(now: now)
        rules.limit = limit == 0 ? nil : limit
        rules.perFeed = perFeed == 0 ? nil : perFeed
        rules.future = future
        if let since {
            guard let date = Self.date(since, now: now) else { throw UsageError("--since: unreadable \(since)") }
            rules.since = date
        }
    }

    /// `$XDG_STATE_HOME/feedmerge/state.sqlite`, else `~/.local/state/feedmerge/state.sqlite`.
    static func defaultStatePath(_ environment: [String: String]) -> String {
        let base =
            environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state"
        return base + "/feedmerge/state.sqlite"
    }

    /// `Name <email>`, or just a name.
    static func person(_ text: String) -> Person {
        if let open = text.firstIndex(of: "<"), let close = text.lastIndex(of: ">"), open < close {
            let name = text[..<open].trimmingCharacters(in: .whitespaces)
            return Person(name: name.isEmpty ? nil : name, email: String(text[text.index(after: open)..<close]))
        }
        return Person(name: text)
    }

    /// A date, or an age before `now`: `30d`, `12h`, `2w`, `90m`.
    static func date(_ text: String, now: Timestamp) -> Timestamp? {
        if let unit = text.last, let amount = Int64(text.dropLast()) {
            let seconds: Int64? =
                switch unit {
                case "m": 60
                case "h": 3600
                case "d": 86_400
                case "w": 604_800
                default: nil
                }
            if let seconds { return Timestamp(secondsSince1970: now.secondsSince1970 - amount * seconds) }
        }
        return DateParser.parse(text)
    }

    func run() async -> Int32 {
        let started = Date()
        var lock: StateLock?
        var state: StateOptions?
        if let statePath {
            let folder = (statePath as NSString).deletingLastPathComponent
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            lock = StateLock(statePath: statePath)
            guard lock != nil else {
                StandardOutput.error("feedmerge: another run holds \(statePath).lock; nothing was done")
                return 75
            }
            do {
                var options = StateOptions(store: try SQLiteStateStore(path: statePath))
                options.force = force
                options.keepDays = keepDays
                options.keepPerFeed = keepPerFeed
                options.health = healthPath != nil
                options.newFeedItems = newFeedItems
                state = options
            } catch {
                StandardOutput.error("feedmerge: state: \(error)")
                return 2
            }
        }
        defer { withExtendedLifetime(lock) {} }
        for output in outputs where output.path != "-" { AtomicFile.removeLeftovers(of: output.path) }
        let client = HTTPClient(configuration: fetch)
        let list: SubscriptionList
        do {
            list = try await SourceReader.read(sources, client: client)
        } catch {
            StandardOutput.error("feedmerge: \(error)")
            return 2
        }
        if verbose { for warning in list.warnings { StandardOutput.error("feedmerge: \(warning)") } }
        guard !list.subscriptions.isEmpty else {
            StandardOutput.error("feedmerge: the sources list no feed")
            return 2
        }
        let progress = Progress(enabled: !quiet && isatty(2) != 0)
        let result = await Aggregator.run(list, client: client, rules: rules, state: state ?? .withoutState()) {
            report, done, total in
            progress.update(report, done: done, total: total)
        }
        progress.finish()
        let (timeline, reports) = (result.timeline, result.reports)
        for diagnostic in result.diagnostics { StandardOutput.error("feedmerge: \(diagnostic)") }
        let mergeStart = Date()
        let duplicates = timeline.duplicates
        let entries = timeline.takeEntries()
        if verbose {
            let total = String(format: "%.3f", mergeStart.timeIntervalSince(started))
            let listing = String(format: "%.3f", Date().timeIntervalSince(mergeStart))
            StandardOutput.error(
                "feedmerge: sources, fetch, parse and merge took \(total) s; listing the timeline \(listing) s")
        }
        let failed = reports.filter(\.failed)
        var written = 0
        // With a state, failing feeds still give their stored entries: write if anything is there.
        if failed.count < reports.count || !entries.isEmpty {
            let metadata = outputMetadata(list: list, entries: entries)
            let failures = await OutputWriter.write(outputs, entries: entries, metadata: metadata, verbose: verbose)
            for failure in failures {
                if let failure { StandardOutput.error("feedmerge: \(failure)") } else { written += 1 }
            }
        }
        for report in failed {
            StandardOutput.error(
                "feedmerge: failed: \(report.subscription.url): \(report.reason ?? report.status.rawValue)")
        }
        if updateOPML {
            for (file, count) in OPMLRewriter.apply(reports).sorted(by: { $0.key < $1.key }) where !quiet {
                StandardOutput.error("feedmerge: \(file): \(count) moved feeds updated")
            }
        }
        if let healthPath {
            do {
                try AtomicFile.write(bytes: HealthReport.render(reports, now: rules.now), to: healthPath)
            } catch {
                StandardOutput.error("feedmerge: \(error)")
            }
        }
        if !verbose && !quiet {
            for report in reports {
                for notice in report.notices {
                    StandardOutput.error("feedmerge: \(report.subscription.url): \(notice)")
                }
            }
            // An unreadable date is never silently "now": each feed that had some says so.
            for report in reports {
                let unreadable = report.warnings.filter(ParseWarning.isUnreadableDate)
                guard let first = unreadable.first else { continue }
                StandardOutput.error(
                    "feedmerge: \(report.subscription.url): \(unreadable.count) unreadable dates (\(first)); "
                        + "those entries count as undated (first seen, with a state; else the feed's date or the run's time)"
                )
            }
        }
        if verbose {
            for report in reports {
                for warning in report.warnings {
                    StandardOutput.error("feedmerge: \(report.subscription.url): \(warning)")
                }
            }
            for duplicate in duplicates {
                let place =
                    duplicate.feedURL == duplicate.otherFeedURL
                    ? "listed twice in \(duplicate.feedURL)" : "in \(duplicate.feedURL) and \(duplicate.otherFeedURL)"
                StandardOutput.error("feedmerge: duplicate merged: \(duplicate.name) \(place)")
            }
        }
        if !quiet {
            let seconds = String(format: "%.1f", Date().timeIntervalSince(started))
            let ok = reports.filter { $0.status == .ok }.count
            let notModified = reports.filter { $0.status == .notModified || $0.status == .deferred }.count
            StandardOutput.error(
                "feedmerge: \(ok) feeds ok, \(notModified) not modified, \(failed.count) failed; "
                    + "\(entries.count) entries written to \(written) of \(outputs.count) outputs, "
                    + "\(duplicates.count) duplicates merged, in \(seconds) s")
        }
        if written < outputs.count && failed.count == reports.count {
            StandardOutput.error("feedmerge: every feed failed; outputs left as they were")
        }
        // The run ends here, without returning: the system takes back the
        // timeline's memory at once, where freeing its entries one string
        // at a time would cost a tenth of a second on a big run.
        exit(written < outputs.count ? 3 : failed.isEmpty ? 0 : 1)
    }

    private func outputMetadata(list: SubscriptionList, entries: [MergedEntry]) -> OutputMetadata {
        let outputTitle = title ?? list.title ?? "feedmerge"
        var fallbackID = "urn:feedmerge:"
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in list.subscriptions.map(\.url).joined(separator: "\n").utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        fallbackID += String(hash, radix: 16)
        let owner =
            list.ownerName != nil || list.ownerEmail != nil
            ? Person(name: list.ownerName, email: list.ownerEmail) : nil
        return OutputMetadata(
            title: outputTitle, link: link, selfURL: selfURL, id: id ?? selfURL ?? link ?? fallbackID,
            author: author ?? owner, updated: entries.first?.date ?? rules.now, generator: "feedmerge",
            generatorVersion: feedmergeVersion, generatorURI: "https://github.com/feedmerge/feedmerge")
    }
}

/// `[done/total] failures` on one terminal line, when stderr is a terminal.
final class Progress: @unchecked Sendable {
    let enabled: Bool
    private var failures = 0
    private var bytes = 0

    init(enabled: Bool) { self.enabled = enabled }

    func update(_ report: FeedReport, done: Int, total: Int) {
        guard enabled else { return }
        if report.failed { failures += 1 }
        bytes += report.bytes
        StandardOutput.errorRaw("\r\u{1B}[K[\(done)/\(total)] \(failures) failed, \(bytes / 1024) KB")
    }

    func finish() {
        if enabled { StandardOutput.errorRaw("\r\u{1B}[K") }
    }
}
