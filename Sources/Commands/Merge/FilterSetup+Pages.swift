import Basics
import EntryFilters
import VenusConfig

extension FilterSetup {
    /// A template's filters (`[index.html.xslt] filters = …`), each
    /// `NAME?options` or `NAME?options>FILE`; those that do not run on a
    /// page are named in `warnings`.
    mutating func pageFilters(_ texts: [String]) throws(UsageError) -> [PageFilter] {
        var result: [PageFilter] = []
        for text in texts {
            let parts = text.split(separator: ">", maxSplits: 1).map(String.init)
            let reference = VenusConfiguration.FilterReference(parts[0])
            var tee: String?
            if parts.count == 2 {
                let target = parts[1].trimmingWhitespace
                guard !target.isEmpty, !target.hasPrefix("/"), !target.split(separator: "/").contains("..") else {
                    throw UsageError("filter \(text): \(target) is not a file name inside output_dir")
                }
                tee = target
            }
            if let native = try Self.nativeFilter(reference) {
                result.append(PageFilter(filter: native, tee: tee))
                continue
            }
            let name = reference.name
            if ["regexp_sifter.py", "xpath_sifter.py", "excerpt.py"].contains(name.split(separator: "/").last ?? "") {
                warn("filter \(name) is not run on a page: it is an entry filter (name it in [Planet] or a feed)")
                continue
            }
            if let reason = Self.notRun(name, onEntries: false) {
                warn(reason)
                continue
            }
            let path = try find(name)
            do {
                let filter: DocumentFilter =
                    name.hasSuffix(".sed")
                    ? try .sed(path: path, timeLimit: timeLimit) : try .stylesheet(path: path, timeLimit: timeLimit)
                result.append(PageFilter(filter: filter, tee: tee))
            } catch {
                throw UsageError(error.description)
            }
        }
        return result
    }
}
