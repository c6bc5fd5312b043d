import Basics
import Foundation

/// What a theme's own `config.ini` may say. Venus reads it under the
/// planet's and takes all of it; a theme is often downloaded, so here it
/// describes the theme and nothing else: its templates and their sections,
/// its bill of materials, page caps and template options, and template
/// directories beside it. Whatever would reach outside the theme (a
/// subscription, `output_dir`, `cache_directory`, filters, an absolute or
/// escaping folder) is left out, each named once in a warning.
struct ThemeSettings {
    /// The theme's options that are kept, as an INI file the planet's is read over.
    var ini = INIFile()
    /// Its template directories, absolute, each inside the folder that holds the theme.
    var directories: [String] = []
    var warnings: [String] = []

    /// `[Planet]` options a theme may not set: where outputs, state and
    /// filters live, what entries are kept, how feeds are fetched, which
    /// WebSub hub is sent requests.
    static let refused: Set<String> = [
        "output_dir", "cache_directory", "filter_directories", "output_theme", "filters", "filter", "exclude",
        "ignore_in_feed", "spider_threads", "feed_timeout", "http_cache_directory", "cache_sources_directory",
        "cache_lists_directory", "log_level", "log_format", "new_feed_items", "future_dates", "pubsubhubbub_hub",
        "pubsubhubbub_feeds",
    ]

    /// Reads a theme's configuration `text` (`file`, in `folder`).
    /// - Parameter protected: folders its template directories may not be
    ///   or hold (the planet's output and cache).
    init(reading text: String, file: String, folder: String, protected: [String]) throws(VenusConfiguration.Failure) {
        var theme = INIFile()
        do { try theme.read(text, file: file) } catch { throw VenusConfiguration.Failure(error.description) }
        if !theme.hasSection("Planet") { theme.renameSection("planet", to: "Planet") }
        func refuse(_ what: String) { warnings.append("\(file): \(what) is not used: a theme describes only itself") }
        let templates = Set(
            ((try? theme.value("template_files", in: "Planet")) ?? nil)?.split(whereSeparator: \.isWhitespace)
                .map(String.init) ?? [])
        if !theme.defaults.isEmpty { refuse("[DEFAULT]") }
        for section in theme.sections {
            if section == "Planet" {
                for key in theme.ownKeys(in: section) {
                    guard !Self.refused.contains(key) else {
                        refuse(key)
                        continue
                    }
                    guard key != "template_directories", let value = theme.raw(key, in: section) else { continue }
                    ini.set(key, value, in: section)
                }
            } else if templates.contains(section) {
                // A template's own section: its page caps and options, not its filters.
                for key in theme.ownKeys(in: section) {
                    guard key != "filters" else {
                        refuse("[\(section)] filters")
                        continue
                    }
                    if let value = theme.raw(key, in: section) { ini.set(key, value, in: section) }
                }
            } else {
                refuse("[\(section)] (a subscription or a filter's settings)")
            }
        }
        let own = ((try? theme.value("template_directories", in: "Planet")) ?? nil) ?? ""
        for name in own.split(whereSeparator: \.isWhitespace).map(String.init) {
            if let directory = Self.beside(name, theme: folder, protected: protected) {
                directories.append(directory)
            } else {
                refuse("template_directories \(name) (absolute, or outside the folder that holds the theme)")
            }
        }
    }

    /// A theme's template directory `name`, when it is relative and its real
    /// path is the theme's folder, inside it, or inside the folder that holds
    /// the theme (Venus's themes name `../common`), and is none of
    /// `protected` nor holds one of them.
    static func beside(_ name: String, theme folder: String, protected: [String]) -> String? {
        guard !name.hasPrefix("/"), !name.hasPrefix("~") else { return nil }
        let path = VenusConfiguration.absolute(name, in: folder)
        guard let real = RealPath.of(path), let themeReal = RealPath.of(folder) else { return nil }
        let holder = (themeReal as NSString).deletingLastPathComponent
        guard RealPath.is(real, inside: themeReal) || (real != holder && RealPath.is(real, inside: holder)) else {
            return nil
        }
        for other in protected {
            guard let otherReal = RealPath.of(other) else { continue }
            if RealPath.is(otherReal, inside: real) || RealPath.is(real, inside: otherReal) { return nil }
        }
        return path
    }
}
