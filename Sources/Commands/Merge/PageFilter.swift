import EntryFilters
import Foundation
import TextOutput

/// A filter of a template's written page (Venus's `[index.html.xslt]
/// filters = addsearch.xslt`): it gets the page as the template wrote it
/// and gives the page to write, as Venus's `splice.apply` runs it. A
/// filter named `NAME>FILE` tees: what it makes of the page is written to
/// FILE beside the page, and the page goes on unchanged.
struct PageFilter: Sendable {
    var filter: DocumentFilter
    /// `>FILE`: where its result goes instead, a path under the page's folder.
    var tee: String?

    /// The page after `filters`, in order. A filter that fails, runs out of
    /// time or gives nothing leaves the page as its template made it (Venus
    /// would delete a page a filter empties), and says so on standard error.
    static func apply(_ filters: [PageFilter], to page: String, path: String) -> String {
        var text = page
        for step in filters {
            let outcome = step.filter.apply(to: text)
            if let tee = step.tee {
                let target = ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(tee)
                switch outcome {
                case .text(let result): write(result, to: target, by: step.filter.name)
                case .unchanged: write(text, to: target, by: step.filter.name)
                default: say(step.filter.name, outcome, on: target, written: "is not written")
                }
                continue
            }
            switch outcome {
            case .text(let result): text = result
            case .unchanged: continue
            default:
                say(step.filter.name, outcome, on: path, written: "is written as its template made it")
                return page
            }
        }
        return text
    }

    private static func write(_ text: String, to target: String, by name: String) {
        do {
            try AtomicFile.write(text, to: target)
        } catch {
            StandardOutput.error("feedmerge: \(target) (filter \(name)): \(error)")
        }
    }

    private static func say(_ name: String, _ outcome: DocumentFilter.Outcome, on path: String, written: String) {
        let what: String
        switch outcome {
        case .empty: what = "gave nothing"
        case .failed(let reason): what = "failed (\(reason))"
        case .stopped: what = "ran out of time (--theme-timeout)"
        case .text, .unchanged: return
        }
        StandardOutput.error("feedmerge: filter \(name) \(what) on \(path), which \(written)")
    }
}
