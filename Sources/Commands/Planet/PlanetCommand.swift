import FeedFetch
import FeedModel
import Foundation
import PlanetPage
import RequestSigning
import Subscriptions
import TimelineMerge
import VenusConfig

/// `feedmerge planet CONFIG`: runs the planet a Planet Venus configuration
/// describes. The configuration becomes one merge run: its subscriptions
/// (names, faces and every other option reach the templates), its reading
/// lists as sources, each of its templates a page written into
/// `output_dir` with its own cap, the state kept in `cache_directory`;
/// then the bill of materials is copied beside the pages.
struct PlanetCommand {
    var configuration: String?
    /// Planet Venus's own folder (`--venus`): its `themes` and `filters`
    /// are looked for there, after the configuration's folder.
    var venusFolder: String?
    /// What the command line sets; the configuration fills in the rest.
    var merge = MergeOptions()
    var quietGiven = false
    var verboseGiven = false

    static let interface = CommandInterface<PlanetCommand>(
        name: "feedmerge planet",
        brief: "run the planet a Planet Venus config.ini describes",
        synopsis: "feedmerge planet [options] CONFIG.ini",
        summary: """
            Reads a Planet Venus (or Planet 2.0) configuration and runs the planet it
            describes: its [Planet] options, [DEFAULT], one section per subscription,
            reading lists (content_type = opml), output_theme (its config.ini merged,
            template_directories searched), every template of template_files rendered
            into output_dir (.xslt and htmltmpl .tmpl, capped as Venus or Planet 2.0 caps
            them, entries dated by updated first as both date them), a template's own
            filters run on it, the bill_of_materials copied (#{face} expanded). The state
            lives in cache_directory (feedmerge.sqlite) unless --state says otherwise;
            feed_timeout is --timeout. Relative paths are read from where it runs when the
            configuration's templates are there (a Planet 2.0 site run from its root), else
            from the configuration's folder. Options feedmerge has no use for are named
            once in a warning. See docs/venus.md.
            """,
        groups: [
            OptionGroup(
                "Planet",
                [
                    Option(
                        "--venus", value: "DIR",
                        help: "Planet Venus's folder: output_theme and filters are also\n"
                            + "looked for in its themes and filters folders"
                    ) { command, folder in command.venusFolder = folder },
                    Option(
                        "--state", value: "PATH",
                        help: "the state (default: CACHE_DIRECTORY/feedmerge.sqlite), or a\nPostgreSQL database"
                    ) { $0.merge.statePath = $1 },
                    Option("--no-state", help: "a one-off run: nothing remembered, nothing reused") { command, _ in
                        command.merge.useState = false
                    },
                    Option("--force", help: "fetch feeds that are gone or asked to be left alone for now") {
                        command, _ in command.merge.force = true
                    },
                    Option(
                        "--fetch-all",
                        help: "ask every feed now, due or not (still conditionally)"
                    ) { command, _ in command.merge.dueOnly = false },
                    Option(
                        "--due-only",
                        help: "fetch only the feeds that are due; serve the others from the\nstate (the default)"
                    ) { command, _ in command.merge.dueOnly = true },
                    Option("--health", value: "FILE", help: "write the per-feed health report (JSON) here") {
                        $0.merge.healthPath = $1
                    },
                    Option(
                        "--metrics", value: "FILE", help: "write the run's metrics here (Prometheus text format)"
                    ) { $0.merge.metricsPath = $1 },
                    Option(
                        "--now", value: "DATE", help: "the run's time (default: SOURCE_DATE_EPOCH, else the clock)"
                    ) { $0.merge.now = try OptionValue.date($1, for: "--now") },
                    Option(
                        "-q", "--quiet",
                        help: "no progress and no summary; a failing feed said once a day\n(default: as log_level says)"
                    ) {
                        command, _ in
                        command.merge.quiet = true
                        command.quietGiven = true
                    },
                    Option("-v", "--verbose", help: "also each feed's parse warnings") { command, _ in
                        command.merge.verbose = true
                        command.verboseGiven = true
                    },
                ]),
            FetchOptions.group(
                \PlanetCommand.merge.fetch,
                maxBytesHelp:
                    "largest feed read, decoded; a bigger one is cut there and keeps\nthe entries that arrived whole"),
        ],
        operandName: "CONFIG",
        operand: { command, path in
            guard command.configuration == nil else { throw UsageError("one configuration at a time") }
            command.configuration = path
        },
        notes: """
            Exit status: as feedmerge's (see feedmerge --help); a configuration that cannot
            be used (missing theme or template, a syntax error) is a usage error (2).
            """,
        examples: [
            (
                "A Venus planet, its themes where Venus keeps them:",
                "feedmerge planet --venus ~/venus planet.ini"
            )
        ])

    static func parse(_ arguments: some Sequence<String>) throws(UsageError) -> Request<PlanetCommand> {
        let request = try interface.parse(arguments, into: PlanetCommand())
        guard case .run(let command) = request else { return request }
        guard command.configuration != nil else { throw UsageError("no CONFIG given (a Venus config.ini)") }
        return request
    }

    func run(environment: [String: String]) async -> Int32 {
        let planet: VenusConfiguration
        do {
            planet = try VenusConfiguration.load(
                configuration!, themeFolders: venusFolder.map { [$0 + "/themes"] } ?? [])
        } catch {
            StandardOutput.error("feedmerge planet: \(error)")
            return ExitStatus.usage.rawValue
        }
        var options: MergeOptions
        var warnings = planet.warnings
        do {
            options = try mergeOptions(for: planet, warnings: &warnings)
        } catch {
            StandardOutput.error("feedmerge planet: \(error.message)")
            return ExitStatus.usage.rawValue
        }
        // What the configuration asks that feedmerge does not do is said whatever log_level says.
        if !quietGiven { for warning in warnings { StandardOutput.error("feedmerge planet: \(warning)") } }
        do {
            try FileManager.default.createDirectory(atPath: planet.outputFolder, withIntermediateDirectories: true)
        } catch {
            StandardOutput.error("feedmerge planet: output_dir \(planet.outputFolder) cannot be created: \(error)")
            return ExitStatus.nothingWritten.rawValue
        }
        let run: MergeRun
        do {
            run = try MergeRun(options: options, environment: environment)
        } catch {
            StandardOutput.error("feedmerge planet: \(error.message)")
            return ExitStatus.usage.rawValue
        }
        var status = await run.run()
        // A run that stopped before it began (no feed, a list that cannot be read) copies nothing either.
        guard status != .usage else { return status.rawValue }
        let failures = BillOfMaterials.copy(planet.billOfMaterials, into: planet.outputFolder)
        for failure in failures { StandardOutput.error("feedmerge planet: bill_of_materials: \(failure)") }
        if !failures.isEmpty && status.rawValue < ExitStatus.someOutputsNotWritten.rawValue {
            status = .someOutputsNotWritten
        }
        return status.rawValue
    }

    /// The merge run the configuration describes, the command line's options over it.
    func mergeOptions(for planet: VenusConfiguration, warnings: inout [String]) throws(UsageError) -> MergeOptions {
        var options = merge
        let settings = planet.planet
        // The private key's path is the operator's, never a page's.
        options.pageSettings = settings.filter { $0.key != "sign_with" }
        options.title = settings["name"] ?? "Unconfigured Planet"
        options.link = settings["link"].flatMap { $0.isEmpty ? nil : $0 }
        // contact_url: the User-Agent's contact (else the planet's link), unless --contact gave one.
        if options.fetch.contactURL == nil, let contact = settings["contact_url"], !contact.isEmpty {
            do {
                options.fetch.contactURL = try FetchOptions.contact(contact)
            } catch {
                throw UsageError("contact_url: \(error.message)")
            }
        }
        let owner = Person(
            name: settings["owner_name"] ?? "Anonymous Coward",
            email: settings["owner_email"].flatMap { $0.isEmpty ? nil : $0 })
        options.author = owner
        if let feed = planet.feedURL {
            options.selfURL = feed
            options.id = feed
        }
        if options.statePath == nil { options.statePath = planet.cacheFolder + "/feedmerge.sqlite" }
        // feed_timeout, unless the command line gave --timeout (a value other than the default).
        let defaultTimeout = FetchConfiguration(userAgent: "").totalTimeoutSeconds
        if let timeout = settings["feed_timeout"], options.fetch.totalTimeoutSeconds == defaultTimeout {
            guard let seconds = Int(timeout), seconds > 0 else {
                throw UsageError("\(planet.path): feed_timeout = \(timeout) is not a number of seconds")
            }
            options.fetch.totalTimeoutSeconds = seconds
        }
        try signing(&options, settings: settings, planet: planet)
        if let keep = settings["cache_keep_entries"] {
            options.keepPerFeed = try OptionValue.count(keep, for: "cache_keep_entries")
        }
        if let future = settings["future_dates"] {
            // Venus's normalization: keep, ignore_date (the run's time instead), ignore_entry.
            switch future {
            case "keep": options.future = .keep
            case "ignore_date": options.future = .clamp
            case "ignore_entry": options.future = .drop
            default:
                warnings.append("\(planet.path): future_dates = \(future) is not keep, ignore_date or ignore_entry")
            }
        }
        switch settings["log_level"]?.uppercased() {
        case "DEBUG" where !quietGiven: options.verbose = true
        case "ERROR", "CRITICAL":
            if !verboseGiven {
                options.quiet = true
                options.warnWhenQuiet = !quietGiven
            }
        default: break
        }
        options.subscriptions = planet.subscriptions.map { section in
            var subscription = Subscription(
                url: Self.address(section.url, in: planet.folder), title: section.options["name"],
                mayReadLocalFile: true)
            subscription.properties = section.options
            // The configuration's values are HTML, handed to templates as written (`Ga&#235;l`).
            subscription.propertiesAreMarkup = true
            // The section's own filters (the planet's are the run's), each with its section's options.
            subscription.properties["filters"] = section.filters.map(\.text).joined(separator: " ")
            return subscription
        }
        // [Planet]'s filters apply to every feed, those of reading lists too.
        options.entryFilters.filter = options.entryFilters.filter ?? settings["filter"]
        options.entryFilters.exclude = options.entryFilters.exclude ?? settings["exclude"]
        options.entryFilters.ignore = options.entryFilters.ignore ?? settings["ignore_in_feed"]
        options.entryFilters.filters = planet.planetFilters.map(\.text) + options.entryFilters.filters
        options.filterFolders =
            planet.filterFolders + [planet.folder] + (venusFolder.map { [$0 + "/filters"] } ?? [])
        options.sources = planet.readingLists.compactMap { list in
            let type = list.options["content_type"]?.lowercased() ?? ""
            guard type.contains("opml") else {
                warnings.append("\(planet.path): [\(list.url)] is a \(type) reading list; only OPML lists are read")
                return nil
            }
            return Self.address(list.url, in: planet.folder)
        }
        // Venus splices one page of the largest items_per_page for every template and has no
        // days_per_page; Planet 2.0 caps each template by its own.
        let dialect = venusFolder != nil ? .venus : planet.dialect
        // Both date an entry by `updated` first. new_feed_items: Venus's cap on a feed's entries
        // in a page; Planet 2.0's share of a dateless feed's first listing that is ever shown.
        switch dialect {
        case .venus:
            options.dating = .venus
            options.showsFeedsOwnAddress = true
            if let items = settings["new_feed_items"] {
                options.perFeed = try OptionValue.count(items, for: "new_feed_items")
            }
        case .planet2:
            options.dating = .planet2
            if let items = settings["new_feed_items"] {
                options.newFeedItems = try OptionValue.count(items, for: "new_feed_items")
            }
        }
        let spliced = planet.templates.map(\.itemsPerPage).max() ?? PageCap.defaultItems
        // Planet 2.0's locale names the language of its dates; Venus has none.
        for locale in Set(([settings["locale"]] + planet.templates.map { $0.options["locale"] }).compactMap { $0 }) {
            if dialect == .venus {
                warnings.append("\(planet.path): locale is not used: Venus writes dates in English")
            } else if PageLocale.named(locale) == nil {
                warnings.append(
                    "\(planet.path): locale \(locale): this machine has none of these locales (locale -a): "
                        + "dates are written in English")
            }
        }
        // Planet 2.0's encoding of a template's output; Venus writes UTF-8.
        for encoding in Set(
            ([settings["encoding"]] + planet.templates.map { $0.options["encoding"] }).compactMap { $0 })
        where !["utf-8", "utf8"].contains(encoding.lowercased()) {
            if dialect == .venus || !PageEncoding.isKnown(encoding) {
                warnings.append("\(planet.path): encoding \(encoding) is not used: pages are written in UTF-8")
            }
        }
        if dialect == .venus {
            options.pageSettings["locale"] = nil
            options.pageSettings["encoding"] = nil
        }
        for template in planet.templates {
            guard ["xslt", "xsl", "tmpl"].contains(template.language) else {
                warnings.append(
                    "\(planet.path): template \(template.name) is not written: "
                        + "only XSLT (.xslt) and htmltmpl (.tmpl) templates are supported")
                continue
            }
            var request = MergeOptions.OutputRequest(path: template.outputPath, format: .page)
            switch dialect {
            case .venus:
                request.page = MergeOptions.PageRequest(themePath: template.path, items: spliced)
            case .planet2:
                request.page = MergeOptions.PageRequest(
                    themePath: template.path, items: template.itemsPerPage,
                    window: PageCap.planetWindow(days: template.daysPerPage))
            }
            request.page.settings = template.options
            request.page.filters = template.pageFilters
            if dialect == .venus {
                request.page.settings["locale"] = nil
                request.page.settings["encoding"] = nil
            }
            options.outputs.append(request)
        }
        guard !options.outputs.isEmpty else {
            throw UsageError("\(planet.path): no template to write (template_files, or output_theme)")
        }
        Self.placeWebSub(planet, into: &options)
        return options
    }

    /// `sign_with` and `signature_agent` (Web Bot Auth), each unless the command line gave
    /// its option; a relative key file is read from the configuration's folder.
    private func signing(_ options: inout MergeOptions, settings: [String: String], planet: VenusConfiguration)
        throws(UsageError)
    {
        if options.fetch.webBotAuth.key == nil, let file = settings["sign_with"], !file.isEmpty {
            do {
                options.fetch.webBotAuth.key = try SigningKey(contentsOfFile: Self.address(file, in: planet.folder))
            } catch {
                throw UsageError("\(planet.path): sign_with: \(error)")
            }
        }
        if options.fetch.webBotAuth.signatureAgent == nil, let url = settings["signature_agent"], !url.isEmpty {
            do {
                try options.fetch.webBotAuth.setSignatureAgent(url)
            } catch {
                throw UsageError("\(planet.path): signature_agent: \(error.reason)")
            }
        }
        try FetchOptions.check(options.fetch)
    }

    /// A section's URL; a relative file path is taken from the configuration's folder.
    static func address(_ url: String, in folder: String) -> String {
        if url.contains("://") || url.hasPrefix("/") { return url }
        return URL(fileURLWithPath: folder).appendingPathComponent(url).standardizedFileURL.path
    }
}
