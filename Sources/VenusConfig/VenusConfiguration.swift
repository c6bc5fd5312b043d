import Basics
import Foundation

/// A Planet Venus configuration (`config.ini`), resolved as Venus resolves
/// it: its theme's `config.ini` read first and the planet's over it, the
/// template and bill-of-materials files found along `template_directories`,
/// and the sections sorted into subscriptions, reading lists, templates and
/// filter settings. Relative paths are taken from the configuration's
/// folder (Venus takes them from the folder it is started in, which for a
/// planet run from cron is the same one).
public struct VenusConfiguration: Sendable {
    /// Why a configuration cannot be used.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// One `[URL]` section: a feed, or a reading list (`content_type = opml`).
    public struct Subscription: Sendable, Equatable {
        public var url: String
        /// Every option a template may read for it (Venus's `feed_options`):
        /// the section's own and `[DEFAULT]`'s, and `[Planet]`'s that Venus
        /// does not define itself (`name`, `face`, `facewidth`, …).
        public var options: [String: String]
        /// Its own filters (run after `planetFilters`).
        public var filters: [FilterReference]
    }

    /// One of `template_files`, found.
    public struct Template: Sendable, Equatable {
        /// As the configuration names it (`index.html.tmpl`): its section's name.
        public var name: String
        /// The file found along `template_directories`.
        public var path: String
        /// What it writes: its name without the last extension, in `output_dir`.
        public var outputPath: String
        /// `.xslt`, `.tmpl`, …
        public var language: String
        public var itemsPerPage: Int
        /// 0: no limit.
        public var daysPerPage: Int
        /// Post-processing filters of the output (`[index.html.xslt] filters = …`).
        public var filters: [String]
        /// Those Venus runs on the written output: each as `FilterReference.text`
        /// names it (its own section's options in it), then `>FILE` when it
        /// tees; one `[Planet]` names too is left out, as Venus leaves it.
        public var pageFilters: [String] = []
        /// Its own section's options (`date_format`, `activity_threshold`,
        /// …), which replace `[Planet]`'s for it.
        public var options: [String: String] = [:]
    }

    /// Which program the configuration was written for, where the two
    /// differ (page caps): Planet 2.0's configurations have htmltmpl
    /// templates only and none of Venus's own options.
    public enum Dialect: Sendable, Equatable {
        case venus, planet2
    }

    /// A filter named in a `filters` option: its file name, and its
    /// options (its own `[section]`, then the `?key=value` after its name).
    public struct FilterReference: Sendable, Equatable {
        public var name: String
        public var options: [String: String]

        public init(name: String, options: [String: String]) {
            self.name = name
            self.options = options
        }

        /// As a `filters` option would name it, its options after `?`
        /// (URL-encoded, in key order): read back by `init(_:)`.
        public var text: String {
            guard !options.isEmpty else { return name }
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            func encoded(_ text: String) -> String {
                text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
            }
            return name + "?"
                + options.sorted { $0.key < $1.key }.map { encoded($0.key) + "=" + encoded($0.value) }
                .joined(separator: "&")
        }
    }

    /// The configuration file.
    public let path: String
    /// The folder relative paths (`output_dir`, `cache_directory`, a local
    /// subscription) are read from: the configuration's, or where the
    /// command runs when the configuration's files are found from there.
    public let folder: String
    public let dialect: Dialect
    /// `[Planet]`'s options, as resolved (the theme's merged).
    public let planet: [String: String]
    /// `[Planet] filters`: run on every feed's entries, before a feed's own.
    public let planetFilters: [FilterReference]
    public let subscriptions: [Subscription]
    /// Sections whose `content_type` names a list of subscriptions.
    public let readingLists: [Subscription]
    public let templates: [Template]
    /// Files copied as they are into `output_dir`: where each is, and its path there.
    public let billOfMaterials: [(source: String, target: String)]
    public let outputFolder: String
    /// The theme's folder, when `output_theme` names one.
    public let themeFolder: String?
    /// What the configuration asks that feedmerge does not do, each said once.
    public let warnings: [String]

    /// `[Planet]` options Venus defines itself; the others reach each
    /// subscription's template variables, as in Venus.
    public static let predefinedOptions: Set<String> = [
        "name", "link", "cache_directory", "log_level", "feed_timeout", "date_format", "new_date_format",
        "generator", "generator_uri", "owner_name", "owner_email", "output_theme", "output_dir", "template_files",
        "bill_of_materials", "template_directories", "filter_directories",
        // feedmerge's own: Web Bot Auth's key file and Signature-Agent (--sign-with, --signature-agent).
        "sign_with", "signature_agent",
    ]

    /// Options that have no meaning in feedmerge: named in a warning.
    static let unsupportedOptions: [String: String] = [
        "spider_threads": "feedmerge always fetches concurrently (see --per-host and --max-transfers)",
        "http_cache_directory": "feedmerge's state keeps what a cache would (conditional GET)",
        "cache_sources_directory": "the state keeps each feed",
        "cache_lists_directory": "reading lists are fetched each run",
        "log_format": "feedmerge writes its own lines (-q, -v)",
        "django_autoescape": "Django templates are not supported",
        "name_type": "normalization overrides are not supported",
        "title_type": "normalization overrides are not supported",
        "summary_type": "normalization overrides are not supported",
        "content_type": "normalization overrides are not supported",
        "xml_base": "normalization overrides are not supported",
        "timeout": "use feed_timeout",
    ]

    /// Reads `path` and its theme.
    /// - Parameter themeFolders: folders where a theme named by
    ///   `output_theme` is looked for after the configuration's own folder
    ///   (Venus looks in its own `themes` folder).
    ///   - workingFolder: where the command runs (planet.py reads its
    ///     relative paths from there).
    public static func load(
        _ path: String, themeFolders: [String] = [],
        workingFolder: String = FileManager.default.currentDirectoryPath
    ) throws(Failure) -> VenusConfiguration {
        let file = URL(fileURLWithPath: path).standardizedFileURL
        let configurationFolder = file.deletingLastPathComponent().path
        let working = URL(fileURLWithPath: workingFolder).standardizedFileURL.path
        let text = try readText(file.path, what: "the configuration")
        var own = INIFile()
        do { try own.read(text, file: path) } catch { throw Failure(error.description) }
        guard own.hasSection("Planet") || own.hasSection("planet") else {
            throw Failure("\(path): no [Planet] section: not a Planet Venus configuration")
        }
        var warnings: [String] = []
        // Venus spells the section [Planet]; accept [planet] too.
        if !own.hasSection("Planet") { own.renameSection("planet", to: "Planet") }

        // Relative paths: from where the command runs when the configuration's
        // files are there (as planet.py reads them), else from its own folder.
        let folder = try baseFolder(of: own, working: working, configuration: configurationFolder)
        let searched = [working, configurationFolder].reduce(into: [String]()) {
            if !$0.contains($1) { $0.append($1) }
        }

        // The theme: its config.ini first, the planet's over it.
        var ini = own
        var themeFolder: String?
        // Venus's default template directory is ".": where it runs.
        var directories = try list(own, "template_directories").map { existing($0, in: searched) }
        if directories.isEmpty { directories = [working] }
        if let theme = try value(own, "output_theme", in: "Planet"), !theme.isEmpty {
            let candidates = (searched + themeFolders).map { absolute(theme, in: $0) }
            guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0 + "/config.ini") })
            else {
                throw Failure(
                    "\(path): output_theme \(theme): no such theme (a folder with a config.ini) in "
                        + candidates.joined(separator: ", ")
                        + "; give Venus's folder (which holds its themes) with --venus DIR")
            }
            themeFolder = found
            let themeText = try readText(found + "/config.ini", what: "the theme")
            let protected = [
                absolute(try value(own, "output_dir", in: "Planet") ?? "output", in: folder),
                absolute(try value(own, "cache_directory", in: "Planet") ?? "cache", in: folder),
            ]
            let settings = try ThemeSettings(
                reading: themeText, file: found + "/config.ini", folder: found, protected: protected)
            warnings += settings.warnings
            var merged = settings.ini
            let themeMaterials = try list(merged, "bill_of_materials")
            do { try merged.read(text, file: path) } catch { throw Failure(error.description) }
            if !merged.hasSection("Planet") { merged.renameSection("planet", to: "Planet") }
            var materials = themeMaterials
            for item in try list(own, "bill_of_materials") where !materials.contains(item) { materials.append(item) }
            merged.set("bill_of_materials", materials.joined(separator: " "), in: "Planet")
            ini = merged
            // Venus's order: the planet's directories, the theme, the configuration's folder, the theme's.
            for candidate in [found, configurationFolder] where !directories.contains(candidate) {
                directories.append(candidate)
            }
            directories += settings.directories
        } else if !directories.contains(configurationFolder) {
            directories.append(configurationFolder)
        }

        var planet: [String: String] = [:]
        for key in ini.keys(in: "Planet") { planet[key] = try value(ini, key, in: "Planet") }
        for key in planet.keys.sorted() {
            if let reason = unsupportedOptions[key] { warnings.append("\(path): \(key) is not used: \(reason)") }
        }

        // Sections: templates, filter settings, reading lists, subscriptions.
        let templateNames = try list(ini, "template_files")
        var filterSections: Set<String> = []
        for section in ["Planet"] + ini.sections {
            for name in try list(ini, "filters", in: section) { filterSections.insert(filterName(name)) }
        }
        let dialect = themeFolders.isEmpty ? try Self.dialect(of: ini, templates: templateNames) : .venus
        // Venus hands a feed the [Planet] options it does not define itself; Planet 2.0 does not.
        let inherited = dialect == .venus ? planet.filter { !predefinedOptions.contains($0.key) } : [:]
        var subscriptions: [Subscription] = []
        var readingLists: [Subscription] = []
        for section in ini.sections where section != "Planet" {
            guard !templateNames.contains(section), !filterSections.contains(section) else { continue }
            var options = inherited
            for key in ini.keys(in: section) { options[key] = try value(ini, key, in: section) }
            var filters: [FilterReference] = []
            if ini.ownKeys(in: section).contains("filters") {
                for name in try list(ini, "filters", in: section) {
                    filters.append(try filterReference(name, ini: ini))
                }
            }
            let subscription = Subscription(url: section, options: options, filters: filters)
            if let type = options["content_type"]?.lowercased(),
                ["opml", "foaf", "csv", "config"].contains(where: type.contains)
            {
                readingLists.append(subscription)
            } else {
                subscriptions.append(subscription)
            }
        }

        // Templates, found along the directories.
        let output = absolute(try value(ini, "output_dir", in: "Planet") ?? "output", in: folder)
        var templates: [Template] = []
        for name in templateNames {
            // Planet 2.0 tries the file's own name when its path is not found.
            let basename = (name as NSString).lastPathComponent
            guard let found = find(name, in: directories) ?? find(basename, in: directories) else {
                throw Failure(
                    "\(path): template \(name) is in none of the template directories: "
                        + directories.joined(separator: ", "))
            }
            let language = (basename as NSString).pathExtension
            func number(_ key: String, _ fallback: Int) throws(Failure) -> Int {
                // Venus's `get`: the template's section (with [DEFAULT]), else [Planet].
                let section = ini.hasSection(name) && ini.raw(key, in: name) != nil ? name : "Planet"
                guard let text = try value(ini, key, in: section) else { return fallback }
                guard let number = Int(text.trimmingWhitespace), number >= 0 else {
                    throw Failure("\(path): \(key) = \(text) is not a whole number (in [\(name)])")
                }
                return number
            }
            var template = Template(
                name: name, path: found.path,
                outputPath: output + "/" + (basename as NSString).deletingPathExtension,
                language: language, itemsPerPage: try number("items_per_page", 60),
                daysPerPage: try number("days_per_page", 0),
                filters: ini.hasSection(name) ? try list(ini, "filters", in: name) : [],
                pageFilters: try pageFilters(of: name, ini: ini))
            if ini.hasSection(name) {
                for key in ini.ownKeys(in: name) where key != "filters" {
                    template.options[key] = try value(ini, key, in: name)
                }
            }
            templates.append(template)
        }

        // The bill of materials, with #{option} expanded once per subscription that sets it.
        var materials: [(source: String, target: String)] = []
        for item in try list(ini, "bill_of_materials") {
            var names: [String] = []
            if let open = item.range(of: "#{"), let close = item[open.upperBound...].firstIndex(of: "}") {
                let key = item[open.upperBound..<close].lowercased()
                for subscription in subscriptions {
                    if let value = subscription.options[key], !value.isEmpty {
                        names.append(item[..<open.lowerBound] + value + item[item.index(after: close)...])
                    }
                }
            } else {
                names.append(item)
            }
            for name in names {
                guard let found = find(name, in: directories) else {
                    warnings.append("\(path): bill_of_materials: \(name) is in none of the template directories")
                    continue
                }
                // Copied from where it really is (a link followed), which is inside its directory.
                if !materials.contains(where: { $0.target == name }) { materials.append((found.real, name)) }
            }
        }
        var planetFilters: [FilterReference] = []
        for name in try list(ini, "filters", in: "Planet") { planetFilters.append(try filterReference(name, ini: ini)) }
        return VenusConfiguration(
            path: path, folder: folder, dialect: dialect, planet: planet, planetFilters: planetFilters,
            subscriptions: subscriptions,
            readingLists: readingLists,
            templates: templates, billOfMaterials: materials, outputFolder: output, themeFolder: themeFolder,
            warnings: warnings)
    }

    /// The folder relative paths are read from: where the command runs
    /// when a relative template, template directory or theme the
    /// configuration names is there and not in the configuration's own
    /// folder (a Planet 2.0 site's `template_files = config/index.html.tmpl`,
    /// run from the site's root as its cron runs `planet.py`); else the
    /// configuration's folder, so that a planet runs the same from anywhere.
    private static func baseFolder(of ini: INIFile, working: String, configuration: String) throws(Failure)
        -> String
    {
        guard working != configuration else { return configuration }
        var names = try list(ini, "template_files") + list(ini, "template_directories")
        if let theme = try value(ini, "output_theme", in: "Planet"), !theme.isEmpty { names.append(theme) }
        let fromWorking = names.contains { name in
            !name.hasPrefix("/") && !name.hasPrefix("~")
                && FileManager.default.fileExists(atPath: absolute(name, in: working))
                && !FileManager.default.fileExists(atPath: absolute(name, in: configuration))
        }
        return fromWorking ? working : configuration
    }

    /// Planet 2.0 when every template is htmltmpl, no section is a reading
    /// list and nothing names an option only Venus has.
    private static func dialect(of ini: INIFile, templates: [String]) throws(Failure) -> Dialect {
        let venusOnly = [
            "output_theme", "template_directories", "bill_of_materials", "filter_directories", "filters",
            "cache_keep_entries", "spider_threads", "pubsubhubbub_hub", "future_dates", "ignore_in_feed",
        ]
        if templates.contains(where: { !$0.hasSuffix(".tmpl") }) { return .venus }
        for section in ["Planet"] + ini.sections {
            if venusOnly.contains(where: { ini.ownKeys(in: section).contains($0) }) { return .venus }
            if let type = try value(ini, "content_type", in: section)?.lowercased(),
                ["opml", "foaf", "csv", "config"].contains(where: type.contains)
            {
                return .venus
            }
        }
        return .planet2
    }

    /// A relative directory from the first of `folders` that has it (the first when none has).
    private static func existing(_ name: String, in folders: [String]) -> String {
        folders.lazy.map { absolute(name, in: $0) }.first { FileManager.default.fileExists(atPath: $0) }
            ?? absolute(name, in: folders[0])
    }

    /// The first of `directories` that holds the file `name`, its real path
    /// (links followed) inside that directory: a name or a link that leads
    /// out of the directory is not found there.
    static func find(_ name: String, in directories: [String]) -> (path: String, real: String)? {
        for directory in directories {
            let path = directory + "/" + name
            guard FileManager.default.fileExists(atPath: path) else { continue }
            if let real = RealPath.of(path, inside: directory) { return (path, real) }
        }
        return nil
    }

    /// Where the planet's feed will be published (Venus's `feed()`): the
    /// `feed` option, else `link` joined with the first template whose name
    /// says atom or rss.
    public var feedURL: String? {
        if let feed = planet["feed"], !feed.isEmpty { return feed }
        guard let link = planet["link"], !link.isEmpty, let base = URL(string: link) else { return nil }
        for template in templates {
            let name = ((template.name as NSString).lastPathComponent as NSString).deletingPathExtension
            if name.contains("atom") || name.contains("rss") {
                return URL(string: name, relativeTo: base)?.absoluteString
            }
        }
        return nil
    }

    /// `[Planet] filter_directories`, from the configuration's folder.
    public var filterFolders: [String] {
        (planet["filter_directories"] ?? "").split(whereSeparator: \.isWhitespace).map {
            Self.absolute(String($0), in: folder)
        }
    }

    /// `[Planet] cache_directory`, from the configuration's folder.
    public var cacheFolder: String { Self.absolute(planet["cache_directory"] ?? "cache", in: folder) }

    // MARK: reading values

    private static func value(_ ini: INIFile, _ key: String, in section: String) throws(Failure) -> String? {
        do { return try ini.value(key, in: section) } catch { throw Failure(error.description) }
    }

    /// A space-separated list option (Venus's `define_planet_list`).
    private static func list(_ ini: INIFile, _ key: String, in section: String = "Planet") throws(Failure) -> [String] {
        (try value(ini, key, in: section) ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
    }

    /// A template's filters as Venus runs them on its output (`splice.apply`).
    private static func pageFilters(of template: String, ini: INIFile) throws(Failure) -> [String] {
        guard ini.hasSection(template) else { return [] }
        let planetFilters = try list(ini, "filters", in: "Planet")
        var result: [String] = []
        for text in try list(ini, "filters", in: template) where !planetFilters.contains(text) {
            let parts = text.split(separator: ">", maxSplits: 1).map(String.init)
            let reference = try filterReference(parts[0], ini: ini)
            result.append(reference.text + (parts.count == 2 ? ">" + parts[1] : ""))
        }
        return result
    }

    /// A filter's file name, without the `?options` after it.
    static func filterName(_ text: String) -> String { String(text.prefix { $0 != "?" }) }

    private static func filterReference(_ text: String, ini: INIFile) throws(Failure) -> FilterReference {
        let name = filterName(text)
        var options: [String: String] = [:]
        if ini.hasSection(name) {
            for key in ini.ownKeys(in: name) { options[key] = try value(ini, key, in: name) }
        }
        var reference = FilterReference(text)
        reference.options.merge(options) { fromQuery, _ in fromQuery }
        return reference
    }
}

extension VenusConfiguration.FilterReference {
    /// A filter as a `filters` option names it: `NAME`, or `NAME?key=value&…`
    /// (URL-encoded; a bare `NAME?EXPRESSION` is the `require` option).
    public init(_ text: String) {
        name = VenusConfiguration.filterName(text)
        options = [:]
        if let query = text.firstIndex(of: "?") {
            for pair in text[text.index(after: query)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map {
                    String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
                }
                // `xpath_sifter.py?EXPRESSION` without a key: Venus's filters read it as `require`.
                if parts.count == 2 { options[parts[0]] = parts[1] } else { options["require"] = parts[0] }
            }
        }
    }
}

extension VenusConfiguration {

    static func absolute(_ path: String, in folder: String) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        let url =
            expanded.hasPrefix("/")
            ? URL(fileURLWithPath: expanded) : URL(fileURLWithPath: folder).appendingPathComponent(expanded)
        return url.standardizedFileURL.path
    }

    private static func readText(_ path: String, what: String) throws(Failure) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
            throw Failure("\(path) (\(what)) \(reason)")
        }
        guard let text = String(data: data, encoding: .utf8) ?? String(data: data, encoding: .isoLatin1) else {
            throw Failure("\(path) (\(what)) is not text")
        }
        return text
    }
}
