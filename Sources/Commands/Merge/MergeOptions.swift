import Aggregator
import FeedEmit
import FeedFetch
import FeedModel
import FeedParse
import Foundation
import PlanetPage
import Subscriptions
import TimelineMerge

/// Everything `feedmerge [options] SOURCE... -o OUTPUT` was asked to do, as
/// read from the command line; each default is written here once and the
/// help shows it from here.
struct MergeOptions {
    /// One `-o`: where, and the `--format` that followed it.
    struct OutputRequest: Equatable {
        var path: String
        var format: OutputKind?
        /// A page's own `--theme`, `--page-items` and `--page-days`.
        var page = PageRequest()
    }

    /// How a page is made; each unset part is the one given before any `-o`, else the default.
    struct PageRequest: Equatable {
        var themePath: String?
        var items: Int?
        var days: Int?
        /// Seconds before its newest entry that a page reaches back (Planet 2.0's `days_per_page`).
        var window: Int64?
        /// Settings of this page alone, over `MergeOptions.pageSettings` (a Venus template's own section).
        var settings: [String: String] = [:]
        /// Filters of the written page (a Venus template's `filters`), as `FilterSetup.pageFilters` reads them.
        var filters: [String] = []

        var isEmpty: Bool { self == PageRequest() }

        /// These settings, each unset part taken from `defaults`.
        func over(_ defaults: PageRequest) -> PageRequest {
            PageRequest(
                themePath: themePath ?? defaults.themePath, items: items ?? defaults.items, days: days ?? defaults.days,
                window: window ?? defaults.window, settings: defaults.settings.merging(settings) { $1 },
                filters: filters.isEmpty ? defaults.filters : filters)
        }

        /// What it caps (0: no cap).
        var cap: PageCap {
            let items = items ?? PageCap.defaultItems
            return PageCap(
                items: items == 0 ? nil : items, days: days.flatMap { $0 == 0 ? nil : $0 },
                window: window.flatMap { $0 == 0 ? nil : $0 })
        }
    }

    var sources: [String] = []
    /// Subscriptions given whole, before the sources' (`feedmerge planet`'s configuration).
    var subscriptions: [Subscription] = []
    /// What is done to every feed's entries (`--filter`, …), before each feed's own.
    var entryFilters = FilterSetup.Request()
    /// Where a filter named without a folder is looked for (after the current folder).
    var filterFolders: [String] = []
    /// Settings the pages' templates may read (`feedmerge planet`: the `[Planet]` options).
    var pageSettings: [String: String] = [:]
    var outputs: [OutputRequest] = []
    var title: String?
    var link: String?
    var selfURL: String?
    /// WebSub (`--hub`, `--public-url`): see `MergeOptions+WebSub`.
    var webSub = WebSubRequest()
    var id: String?
    var author: Person?
    var limit = TimelineRules.defaultLimit
    var perFeed = 0
    var since: String?
    var future = TimelineRules.FuturePolicy.clamp
    /// Whose rules date entries: `feedmerge planet` follows its configuration's program.
    var dating = TimelineRules.DatingStyle.feedmerge
    /// Pages show a subscription's address as its feed gives it (`rel="self"`), as Venus does.
    var showsFeedsOwnAddress = false
    var now: Timestamp?
    var fetch = FetchConfiguration.polite(userAgent: "feedmerge/\(feedmergeVersion)")
    var statePath: String?
    var useState = true
    var force = false
    var keepDays = StateOptions.defaultKeepDays
    var keepPerFeed = StateOptions.defaultKeepPerFeed
    var newFeedItems = StateOptions.defaultNewFeedItems
    /// `fetch`, its contact the site's address (`--link`) unless `--contact` gave one.
    var fetchConfiguration: FetchConfiguration {
        var configuration = fetch
        if configuration.contactURL == nil, let link, let contact = try? FetchOptions.contact(link) {
            configuration.contactURL = contact
        }
        return configuration
    }
    /// With a state, only the feeds the schedule says are due are fetched; `--fetch-all`: every one.
    var dueOnly = true
    /// `feedmerge render`: nothing fetched, nothing stored; the outputs made from the state.
    var renderOnly = false
    /// `feedmerge render` with no SOURCE: every feed the shared state lists.
    var rendersWholeState: Bool { renderOnly && sources.isEmpty && subscriptions.isEmpty }
    var healthPath: String?
    /// `--metrics FILE`: the run's metrics in Prometheus's text format.
    var metricsPath: String?
    /// `--theme`, `--page-items` and `--page-days` given before any `-o`: every page's.
    var page = PageRequest()
    var themeTimeout = Theme.defaultTimeLimit
    var sanitize = false
    var summaryOnly = false
    var updateOPML = false
    var quiet = false
    /// Quiet, but what the run's configuration asks that feedmerge does not do
    /// (a filter not run) is still said: a Venus config's `log_level = ERROR`.
    var warnWhenQuiet = false
    var verbose = false

    static let interface = CommandInterface<MergeOptions>(
        name: "feedmerge",
        brief: "merge feeds (the main job; options below)",
        synopsis: "feedmerge [options] SOURCE... -o OUTPUT [--format F] [-o OUTPUT [--format F]]...",
        summary: """
            Merges the feeds of the SOURCEs into one timeline and writes it to every OUTPUT.
            SOURCE: an OPML file or URL (recognised by its content), a feed URL, a local
            feed file, or - for standard input (an OPML list, a list of URLs, or a feed).
            A list fetched over the network or piped in names web feeds only: local files
            are read when named here or in a local list (see SECURITY.md).
            OUTPUT: a file, or - for standard output. Its format comes from its name
            (.atom, .rss, .json; atom.xml, rss.xml; .html for the planet page, .opml for
            the subscription list) or from the --format that follows it.
            """,
        groups: [
            OptionGroup(
                "Output",
                [
                    Option(
                        "-o", "--output", value: "FILE",
                        help: "write the merged feed here (repeatable; each written atomically)"
                    ) { options, path in
                        guard !options.outputs.contains(where: { $0.names(path) }) else {
                            throw UsageError("\(path == "-" ? "standard output" : path) is given as an output twice")
                        }
                        options.outputs.append(OutputRequest(path: path))
                    },
                    Option(
                        "--format", value: "atom|rss|json|html|opml",
                        help: "the format of the -o just before it (standard output: atom)"
                    ) { options, text in
                        let name: OutputKind.Name = try OptionValue.choice(text, for: "--format")
                        let format = OutputKind(name)
                        guard let last = options.outputs.indices.last else {
                            throw UsageError("--format applies to the -o before it: put it after -o FILE")
                        }
                        guard options.outputs[last].format == nil else {
                            throw UsageError("\(options.outputs[last].path) is given two formats")
                        }
                        options.outputs[last].format = format
                    },
                    Option("--title", value: "TEXT", help: "the merged feed's title (default: the OPML title)") {
                        $0.title = $1
                    },
                    Option(
                        "--link", value: "URL",
                        help: "its home page (default: the OPML's htmlUrl or ownerId; RSS needs one)"
                    ) { $0.link = $1 },
                    Option("--self-url", value: "URL", help: "where it will be published") { $0.selfURL = $1 },
                    Option(
                        "--public-url", value: "URL",
                        help: "where the outputs' folder is published: each feed's rel=\"self\"\n"
                            + "is its file name there (over --self-url)"
                    ) { options, text in
                        let folder = try WebSubRequest.webURL(text, for: "--public-url")
                        options.webSub.publicFolder = folder.hasSuffix("/") ? folder : folder + "/"
                    },
                    Option(
                        "--hub", value: "URL",
                        help: "a WebSub hub the feeds name (rel=\"hub\"), told of each feed a\n"
                            + "run changes (repeatable; needs --public-url or --self-url)"
                    ) { $0.webSub.hubs.append(try WebSubRequest.webURL($1, for: "--hub")) },
                    Option(
                        "--id", value: "ID",
                        help:
                            "its Atom id (default: --self-url, --link, else the one the state\n"
                            + "kept from its first run's sources)"
                    ) { $0.id = $1 },
                    Option("--author", value: "\"NAME <EMAIL>\"", help: "its author (default: the OPML owner)") {
                        $0.author = PersonText.parse($1)
                    },
                    Option(
                        "--sanitize",
                        help: "make the feeds' HTML safe in the merged feeds too (the page's\nalways is)"
                    ) { options, _ in options.sanitize = true },
                ]),
            OptionGroup(
                "Planet page (-o index.html)",
                [
                    Option(
                        "--theme", value: "FILE",
                        help: "the page's theme: XSLT (.xsl, .xslt) or htmltmpl (.tmpl), as\n"
                            + "Planet Venus's (default: the built-in one). After -o PAGE:\nthat page's; before any -o: every page's"
                    ) { options, path in try options.setPage(\.themePath, path, "--theme") },
                    Option(
                        "--page-items", value: "N",
                        help:
                            "the page shows the newest N entries (0: all; the merged\nfeeds keep --limit); placed as --theme",
                        default: { _ in "\(PageCap.defaultItems)" }
                    ) { options, text in
                        try options.setPage(\.items, try OptionValue.count(text, for: "--page-items"), "--page-items")
                    },
                    Option(
                        "--page-days", value: "N",
                        help: "and only those of the newest N days with entries; placed as\n--theme"
                    ) { options, text in
                        try options.setPage(\.days, try OptionValue.count(text, for: "--page-days"), "--page-days")
                    },
                    Option(
                        "--theme-timeout", value: "S",
                        help:
                            "stop a theme or filter that runs (or a template that\ncompiles) longer than S seconds: the page is not written\nand the previous one stays; a filter's entries stay as they\nwere",
                        default: { "\(Int($0.themeTimeout))" }
                    ) { $0.themeTimeout = Double(try OptionValue.positive($1, for: "--theme-timeout")) },
                    Option("--summary-only", help: "the page shows each entry's summary, not its content") {
                        options, _ in options.summaryOnly = true
                    },
                ]),
            OptionGroup(
                "Timeline",
                [
                    Option(
                        "--limit", value: "N", help: "keep the newest N entries (0: all)", default: { "\($0.limit)" }
                    ) { $0.limit = try OptionValue.count($1, for: "--limit") },
                    Option("--per-feed", value: "N", help: "at most the newest N entries of each feed (0: no limit)") {
                        $0.perFeed = try OptionValue.count($1, for: "--per-feed")
                    },
                    Option(
                        "--since", value: "DATE|AGE", help: "drop entries older than a date or an age (30d, 12h, 2w)"
                    ) { $0.since = $1 },
                    Option(
                        "--future", value: "keep|clamp|drop", help: "entries dated after the run's time",
                        default: { $0.future.rawValue }
                    ) { $0.future = try OptionValue.choice($1, for: "--future") },
                    Option(
                        "--now", value: "DATE", help: "the run's time (default: SOURCE_DATE_EPOCH, else the clock)"
                    ) { $0.now = try OptionValue.date($1, for: "--now") },
                ]),
            OptionGroup(
                "Entry filters (every feed's; a local OPML list's outlines may add their own)",
                [
                    Option("--filter", value: "REGEX", help: "keep only entries whose text matches") { options, text in
                        guard options.entryFilters.filter == nil else { throw UsageError("--filter is given twice") }
                        options.entryFilters.filter = text
                    },
                    Option("--exclude", value: "REGEX", help: "leave out entries whose text matches") { options, text in
                        guard options.entryFilters.exclude == nil else { throw UsageError("--exclude is given twice") }
                        options.entryFilters.exclude = text
                    },
                    Option(
                        "--ignore-in-feed", value: "NAMES",
                        help: "what feeds say that is not believed (author, updated,\npublished, id, category, …)"
                    ) { $0.entryFilters.ignore = $1 },
                    Option(
                        "--entry-filter", value: "FILTER",
                        help: "a Venus filter: FILE.xslt, regexp_sifter.py?require=RE,\n"
                            + "xpath_sifter.py?exclude=XPATH, excerpt.py?width=N (repeatable)"
                    ) { $0.entryFilters.filters.append($1) },
                ]),
            FetchOptions.group(
                \.fetch,
                maxBytesHelp:
                    "largest feed read, decoded; a bigger one is cut there and keeps\nthe entries that arrived whole"),
            OptionGroup(
                "State (on by default; see docs/state.md)",
                [
                    Option(
                        "--state", value: "PATH",
                        help: "the state file (default: $XDG_STATE_HOME/feedmerge/state.sqlite),\n"
                            + "or a PostgreSQL database (postgresql://USER@HOST/DB,\nor libpq's key=value words)"
                    ) { $0.statePath = $1 },
                    Option("--no-state", help: "a one-off run: nothing remembered, nothing reused") { options, _ in
                        options.useState = false
                    },
                    Option("--force", help: "fetch feeds that are gone or asked to be left alone for now") {
                        options, _ in options.force = true
                    },
                    Option(
                        "--fetch-all",
                        help: "ask every feed now, due or not (still conditionally; a\n"
                            + "Retry-After or cache lifetime is still honoured: --force)"
                    ) { options, _ in options.dueOnly = false },
                    Option(
                        "--due-only",
                        help: "fetch only the feeds that are due (the default with a state:\n"
                            + "by how often each posts, its ttl, failures, the server's\nwishes); serve the others from the state"
                    ) { options, _ in options.dueOnly = true },
                    Option(
                        "--keep-days", value: "N", help: "keep entries a feed no longer lists for N days",
                        default: { "\($0.keepDays)" }
                    ) { $0.keepDays = try OptionValue.count($1, for: "--keep-days") },
                    Option(
                        "--keep-per-feed", value: "N", help: "and at most the newest N stored per feed",
                        default: { "\($0.keepPerFeed)" }
                    ) { $0.keepPerFeed = try OptionValue.count($1, for: "--keep-per-feed") },
                    Option(
                        "--new-feed-items", value: "N",
                        help: "a new feed's undated entries beyond its first N are dated as\nhistory, not news",
                        default: { "\($0.newFeedItems)" }
                    ) { $0.newFeedItems = try OptionValue.count($1, for: "--new-feed-items") },
                    Option(
                        "--health", value: "FILE",
                        help: "write the per-feed health report (JSON) here; an output like -o"
                    ) { $0.healthPath = $1 },
                    Option(
                        "--metrics", value: "FILE",
                        help:
                            "write the run's metrics here (Prometheus text format, for\nnode_exporter's textfile collector)"
                    ) { $0.metricsPath = $1 },
                    Option("--update-opml", help: "write permanent redirects (301/308) back into local OPML files") {
                        options, _ in options.updateOPML = true
                    },
                ]),
            OptionGroup(
                "Reporting",
                [
                    Option(
                        "-q", "--quiet",
                        help: "no progress and no summary; with a state, a failing feed is\n"
                            + "said when it starts failing, once a day while it fails, and\nwhen it recovers (for cron)"
                    ) {
                        options, _ in options.quiet = true
                    },
                    Option("-v", "--verbose", help: "also each feed's parse warnings and each duplicate merged") {
                        options, _ in options.verbose = true
                    },
                ]),
        ],
        operandName: "SOURCE",
        operand: { options, source in options.sources.append(source) },
        notes: """
            Undated entries (and those whose date cannot be read, which the run names)
            are dated by their first sight with a state, else by their feed's own date,
            else the run's time. Within one feed, different ids are different entries;
            across feeds, the same id (a URI: tag:, urn:, http:) or else the same link
            once normalized (the #fragment counts) is one entry, kept once, from the
            feed where it is dated earliest. Entries that name no author are credited
            to their feed's authors.
            """,
        listsExitStatus: true,
        examples: [
            ("The feeds of an OPML list merged into one Atom feed:", "feedmerge feeds.opml -o merged.atom"),
            (
                "A planet's feeds, in two formats, with a title:",
                "feedmerge feeds.opml -o site/atom.xml -o site/feed.json --title \"Planet Example\""
            ),
            (
                "A feed on the web and a local one, merged as RSS (which needs a home page):",
                "feedmerge https://blog.example.org/feed.xml notes.rss -o feed.xml --format rss --link https://example.org/"
            ),
            (
                "A list read from standard input, the merged Atom feed written to standard output:",
                "curl -s https://example.org/feeds.opml | feedmerge - -o -"
            ),
        ])

    /// Reads a command line (after the program name).
    static func parse(
        _ arguments: some Sequence<String>, interface: CommandInterface<MergeOptions> = interface,
        needsSource: Bool = true
    ) throws(UsageError) -> Request<MergeOptions> {
        let request = try interface.parse(arguments, into: MergeOptions())
        guard case .run(var options) = request else { return request }
        guard !options.sources.isEmpty || !needsSource else { throw UsageError("no SOURCE given") }
        guard !options.outputs.isEmpty else { throw UsageError("no output given (-o FILE)") }
        var kinds: [OutputKind] = []
        for output in options.outputs { kinds.append(try output.resolvedFormat()) }
        try options.placePageSettings(kinds: kinds)
        try options.checkWebSub(kinds: kinds)
        if !kinds.contains(.page) {
            if let theme = options.page.themePath {
                throw UsageError("--theme \(theme) is for the planet page: add -o index.html")
            }
            if !options.page.isEmpty {
                throw UsageError("--page-items and --page-days are for the planet page: add -o index.html")
            }
            if options.summaryOnly { throw UsageError("--summary-only is for the planet page: add -o index.html") }
        }
        if options.sources.filter({ $0 == "-" }).count > 1 {
            throw UsageError("standard input (-) is given as a SOURCE twice")
        }
        try FetchOptions.check(options.fetch)
        return .run(options)
    }

    /// A page setting given after an `-o` that is not a page belongs to the
    /// nearest page before it, else (no page before it) to every page:
    /// `-o index.html -o atom.xml --theme t.xsl` themes index.html, as it
    /// always has.
    mutating func placePageSettings(kinds: [OutputKind]) throws(UsageError) {
        for index in outputs.indices where kinds[index] != .page && !outputs[index].page.isEmpty {
            let setting = outputs[index].page
            outputs[index].page = PageRequest()
            let owner = outputs.indices.prefix(index).last { kinds[$0] == .page }
            let current = owner.map { outputs[$0].page } ?? page
            let name = owner.map { outputs[$0].path } ?? "every page"
            if (setting.themePath != nil && current.themePath != nil) || (setting.items != nil && current.items != nil)
                || (setting.days != nil && current.days != nil)
            {
                throw UsageError("a page setting (--theme, --page-items, --page-days) is given twice for \(name)")
            }
            let merged = setting.over(current)
            if let owner { outputs[owner].page = merged } else { page = merged }
        }
    }

    /// Sets a page setting: the last `-o`'s (see `placePageSettings`), else (before any `-o`) every page's.
    mutating func setPage<Value>(_ part: WritableKeyPath<PageRequest, Value?>, _ value: Value, _ option: String)
        throws(UsageError)
    {
        if let last = outputs.indices.last {
            guard outputs[last].page[keyPath: part] == nil else {
                throw UsageError("\(option) is given twice for \(outputs[last].path)")
            }
            outputs[last].page[keyPath: part] = value
        } else {
            guard page[keyPath: part] == nil else { throw UsageError("\(option) is given twice before any -o") }
            page[keyPath: part] = value
        }
    }

    /// The run's time: `--now`, else `SOURCE_DATE_EPOCH`, else the clock.
    func runTime(environment: [String: String]) -> Timestamp {
        if let now { return now }
        if let epoch = environment["SOURCE_DATE_EPOCH"].flatMap(Int64.init) {
            return Timestamp(secondsSince1970: epoch)
        }
        return Timestamp(secondsSince1970: Int64(Date().timeIntervalSince1970))
    }

    /// The timeline's rules for a run at `now`.
    func rules(now: Timestamp) throws(UsageError) -> TimelineRules {
        var rules = TimelineRules(now: now)
        rules.limit = limit == 0 ? nil : limit
        rules.perFeed = perFeed == 0 ? nil : perFeed
        rules.future = future
        rules.dating = dating
        if let since { rules.since = try OptionValue.dateOrAge(since, now: now, for: "--since") }
        return rules
    }

    /// `--state`, else `$XDG_STATE_HOME/feedmerge/state.sqlite`, else
    /// `~/.local/state/feedmerge/state.sqlite`; nil with `--no-state`.
    func resolvedStatePath(environment: [String: String]) -> String? {
        guard useState else { return nil }
        if let statePath { return statePath }
        let base =
            environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state"
        return base + "/feedmerge/state.sqlite"
    }
}

extension MergeOptions.OutputRequest {
    /// Whether `other` names the same destination (`a.atom` and `./a.atom` do).
    func names(_ other: String) -> Bool {
        func absolute(_ path: String) -> String {
            path == "-" ? path : URL(fileURLWithPath: path).standardizedFileURL.path
        }
        return absolute(path) == absolute(other)
    }

    /// What it is to hold: the `--format` given, else what its name says;
    /// standard output is Atom unless told.
    func resolvedFormat() throws(UsageError) -> OutputKind {
        if path == "-" && format == nil { return .feed(.atom) }
        var isFolder: ObjCBool = false
        if path != "-", FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            let example = (path.hasSuffix("/") ? path : path + "/") + "index.html"
            throw UsageError("-o \(path) is a folder: name a file in it (for the page, -o \(example))")
        }
        if let format { return format }
        switch OutputFormat.recognise(fileName: path) {
        case .format(let format): return .feed(format)
        case .page: return .page
        case .subscriptionList: return .subscriptionList
        case .unknown:
            throw UsageError(
                "cannot tell the format of \(path): name it .atom, .rss, .json, .html or .opml, or add --format after it"
            )
        }
    }
}
