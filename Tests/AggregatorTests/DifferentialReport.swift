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
            let error = (feedmerge["error"] as? String).map { " (\($0))" } ?? ""
            lines.append("\(file): feedmerge's is \(kinds.0)\(error), \(self.reference)'s \(kinds.1)")
            return
        }
        if let title = reference["title"] as? String, feedmerge["title"] as? String != title {
            lines.append("\(file): title: feedmerge «\(Self.show(feedmerge["title"]))» vs \(self.reference) «\(title)»")
        }
        for list in ["entries", "subscriptions"] {
            compare(
                file: file, list: list, feedmerge: feedmerge[list] as? [[String: Any]] ?? [],
                reference: reference[list] as? [[String: Any]] ?? [])
        }
    }

    /// Rows are matched by key (an entry's link, a subscription's site), so one row out of place is
    /// one line, not a cascade: the order (entries of one date in either order), the rows only one
    /// side shows, then each matched row's differing fields.
    private mutating func compare(
        file: String, list: String, feedmerge: [[String: Any]], reference: [[String: Any]]
    ) {
        var found: [String] = []
        if feedmerge.count != reference.count {
            found.append("\(file): \(feedmerge.count) \(list) in feedmerge's, \(reference.count) in \(self.reference)'s")
        }
        let entries = list == "entries"
        let key: ([String: Any]) -> String = { row in entries ? Self.entryKey(row) : Self.subscriptionKey(row) }
        let (ours, theirs) = entries ? (Self.tiesOrdered(feedmerge), Self.tiesOrdered(reference)) : (feedmerge, reference)
        if let first = zip(ours, theirs).enumerated().first(where: { key($0.element.0) != key($0.element.1) })?.offset {
            found.append(
                "\(file): order differs from \(entries ? "entry" : "subscription") \(first + 1): feedmerge «\(key(ours[first]))» vs "
                    + "\(self.reference) «\(key(theirs[first]))»")
        }
        var unmatched = theirs.enumerated().map { ($0.offset, $0.element) }
        var pairs: [(Int, [String: Any], [String: Any])] = []
        var onlyOurs: [String] = []
        for row in ours {
            if let at = unmatched.firstIndex(where: { key($0.1) == key(row) }) {
                pairs.append((unmatched[at].0, row, unmatched[at].1))
                unmatched.remove(at: at)
            } else {
                onlyOurs.append(key(row))
            }
        }
        for (side, keys) in [("feedmerge's only", onlyOurs), ("\(self.reference)'s only", unmatched.map { key($0.1) })]
        where !keys.isEmpty {
            found.append("\(file): \(keys.count) \(list) \(side): \(keys.prefix(limit).map { "«\($0)»" }.joined(separator: ", "))")
        }
        pairs.sort { $0.0 < $1.0 }
        for (index, ours, theirs) in pairs {
            let keys = Set(ours.keys).union(theirs.keys).sorted()
            let differing = keys.filter { Self.show(ours[$0]) != Self.show(theirs[$0]) }
            guard !differing.isEmpty else { continue }
            let label = "\(file) \(list == "entries" ? "entry" : "subscription") \(index + 1)"
            found.append("\(label) («\(Self.show(theirs["title"] ?? theirs["name"] ?? ours["title"] ?? ours["name"]))»):")
            for key in differing {
                found.append("    \(key): feedmerge «\(Self.show(ours[key]))» vs \(self.reference) «\(Self.show(theirs[key]))»")
            }
        }
        lines += found.prefix(limit * 3)
        if found.count > limit * 3 { lines.append("\(file): … \(found.count - limit * 3) more \(list) lines") }
    }

    /// What matches an entry on both sides: its link, else its title.
    private static func entryKey(_ entry: [String: Any]) -> String {
        Self.show(entry["link"] is String ? entry["link"] : entry["title"])
    }

    /// What matches a subscription on both sides: its site, else its feed (the programs may
    /// name a feed by the address it was fetched from or by the one it gives itself).
    private static func subscriptionKey(_ subscription: [String: Any]) -> String {
        Self.show(subscription["link"] is String ? subscription["link"] : subscription["feed"])
    }

    /// The entries with each run of one date (as shown, or as meant) in link order: the programs
    /// order entries of the same instant differently, and neither order is wrong.
    private static func tiesOrdered(_ entries: [[String: Any]]) -> [[String: Any]] {
        let date = { (entry: [String: Any]) in "\(entry["date"] ?? entry["shown"] ?? "")" }
        let link = { (entry: [String: Any]) in "\(entry["link"] ?? entry["title"] ?? "")" }
        var result: [[String: Any]] = []
        var run: [[String: Any]] = []
        for entry in entries {
            if let last = run.last, date(last) != date(entry) {
                result += run.sorted { link($0) < link($1) }
                run = []
            }
            run.append(entry)
        }
        return result + run.sorted { link($0) < link($1) }
    }

    private static func show(_ value: Any?) -> String {
        switch value {
        case nil, is NSNull: "(none)"
        case let text as String: text
        case let some?: "\(some)"
        }
    }

    var text: String { lines.joined(separator: "\n") }
}
