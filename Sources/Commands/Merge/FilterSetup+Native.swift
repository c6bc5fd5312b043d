import EntryFilters
import Foundation
import VenusConfig

extension FilterSetup {
    /// Venus's Python filters that run natively, with their options; nil for another name.
    static func nativeFilter(_ reference: VenusConfiguration.FilterReference) throws(UsageError) -> DocumentFilter? {
        switch (reference.name as NSString).lastPathComponent {
        case "minhead.py":
            do {
                return try .headings(min: reference.options["min"])
            } catch {
                throw UsageError(error.description)
            }
        case "notweets.py": return .noTweets
        case "coral_cdn_filter.py": return .coralCDN
        default: return nil
        }
    }

    /// Why a filter named is not run, or nil when it is (an XSLT or sed
    /// file, or one run natively): a third-party Python filter, a plugin.
    static func notRun(_ name: String, onEntries: Bool) -> String? {
        let base = (name as NSString).lastPathComponent
        if name.hasSuffix(".xslt") || name.hasSuffix(".xsl") || name.hasSuffix(".sed") { return nil }
        switch base {
        case "mememe.plugin":
            return "filter \(name) is not run: feedmerge does not build Venus's memes page "
                + "(it needs Venus's own cache of every link's history)"
        case "html2xhtml.plugin", "xhtml2html.plugin":
            return onEntries
                ? "filter \(name) is not run on entries: it rewrites a template's page (name it in a template's filters)"
                : "filter \(name) is not run: feedmerge does not reserialize a page with html5lib"
        default:
            return "filter \(name) is not run: feedmerge runs XSLT and sed filters and Venus's own excerpt.py, "
                + "regexp_sifter.py, xpath_sifter.py, minhead.py, notweets.py and coral_cdn_filter.py, "
                + "not other Python filters or plugins"
        }
    }

    /// A filter file: as named when absolute, else in the first folder that has it.
    func find(_ name: String) throws(UsageError) -> String {
        let candidates = name.hasPrefix("/") ? [name] : folders.map { $0 + "/" + name }
        guard let path = candidates.first(where: FileManager.default.fileExists) else {
            throw UsageError("filter \(name) is in none of \(folders.joined(separator: ", "))")
        }
        return path
    }
}
