import Foundation

/// The differences between what a reader sees in feedmerge's output and in the
/// reference program's (Venus or Planet 2.0), file by file and entry by entry:
/// each differing field of each entry or subscription, side by side.
struct DifferentialReport {
    /// The reference program's name, as the lines say it.
    let reference: String
    private(set) var lines: [String] = []
    /// At most this many lines per list, then a count of the rest.
    let limit = 12

    init(reference: String) { self.reference = reference }

    var isEmpty: Bool { lines.isEmpty }

    /// Compares one output file's two views (`PlanetDifferential.view`).
    mutating func compare(file: String, feedmerge: [String: Any], reference: [String: Any]) {
        let kinds = (feedmerge["kind"] as? String ?? "?", reference["kind"] as? String ?? "?")
        guard kinds.0 == kinds.1 else {
            lines.append("\(file): feedmerge's is \(kinds.0) \(feedmerge["error"] ?? ""), \(self.reference)'s \(kinds.1)")
            return
        }
        if let title = reference["title"] as? String, feedmerge["title"] as? String != title {
            lines.append("\(file): title: feedmerge «\(show(feedmerge["title"]))» vs \(self.reference) «\(title)»")
        }
        for list in ["entries", "subscriptions"] {
            compare(
                file: file, list: list, feedmerge: feedmerge[list] as? [[String: Any]] ?? [],
                reference: reference[list] as? [[String: Any]] ?? [])
        }
    }

    private mutating func compare(
        file: String, list: String, feedmerge: [[String: Any]], reference: [[String: Any]]
    ) {
        var found: [String] = []
        if feedmerge.count != reference.count {
            found.append("\(file): \(feedmerge.count) \(list) in feedmerge's, \(reference.count) in \(self.reference)'s")
        }
        for index in 0..<max(feedmerge.count, reference.count) {
            let ours = index < feedmerge.count ? feedmerge[index] : [:]
            let theirs = index < reference.count ? reference[index] : [:]
            let keys = Set(ours.keys).union(theirs.keys).sorted()
            let differing = keys.filter { show(ours[$0]) != show(theirs[$0]) }
            guard !differing.isEmpty else { continue }
            let label = "\(file) \(list == "entries" ? "entry" : "subscription") \(index + 1)"
            let what = show(theirs["title"] ?? theirs["name"] ?? ours["title"] ?? ours["name"])
            found.append("\(label) («\(what)»):")
            for key in differing {
                found.append("    \(key): feedmerge «\(show(ours[key]))» vs \(self.reference) «\(show(theirs[key]))»")
            }
        }
        lines += found.prefix(limit * 3)
        if found.count > limit * 3 { lines.append("\(file): … \(found.count - limit * 3) more \(list) lines") }
    }

    private func show(_ value: Any?) -> String {
        switch value {
        case nil, is NSNull: "(none)"
        case let text as String: text
        case let some?: "\(some)"
        }
    }

    var text: String { lines.joined(separator: "\n") }
}
