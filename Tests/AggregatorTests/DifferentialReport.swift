import Foundation

/// The differences between what a reader sees in feedmerge's output and in the
/// reference program's (Venus or Planet 2.0), file by file and entry by entry:
/// each differing field of each entry or subscription, side by side.
///
/// What docs/venus.md ("What differs") lists as feedmerge's on purpose is
/// set aside first, each by a rule narrow enough to name the rows it covers
/// (`Documented`); every row a rule covers is counted in `setAside`, and
/// anything else that differs is a difference.
struct DifferentialReport {
    /// The reference program's name, as the lines say it.
    let reference: String
    let documented: Documented
    private(set) var lines: [String] = []
    /// How many rows each documented rule set aside, by the rule's name.
    private(set) var setAside: [String: Int] = [:]
    /// At most this many lines per list, then a count of the rest.
    let limit = 12

    init(reference: String, documented: Documented) {
        self.reference = reference
        self.documented = documented
    }

    /// The differences docs/venus.md lists, as rules over the two views' rows.
    struct Documented {
        /// The links of the entries of the feed Venus's parser cannot date (RSS 0.92,
        /// `03 Apr 02 1500 GMT`), and that feed's address: Venus loses its subscription,
        /// so those entries show no channel, author or source there.
        var undatableFeedEntries: Set<String> = []
        var undatableFeed: String?
        /// Entries whose id both old programs take from their enclosure (RSS 0.92 items
        /// without `guid`); feedmerge identifies them by their link.
        var enclosureIdentified: Set<String> = []
        /// The feeds of subscriptions the configuration names (Venus names the others "").
        var named: Set<String> = []
    }

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

    private mutating func note(_ rule: String) { setAside[rule, default: 0] += 1 }

    /// Rows are matched by key (an entry's link; a subscription's site, else its feed's
    /// title, else its feed), so one row out of place is one line, not a cascade: the
    /// order (entries of one date in either order), the rows only one side shows, then
    /// each matched row's differing fields.
    private mutating func compare(
        file: String, list: String, feedmerge: [[String: Any]], reference: [[String: Any]]
    ) {
        let entries = list == "entries"
        var ours = entries ? Self.tiesOrdered(feedmerge) : feedmerge
        var theirs = entries ? Self.tiesOrdered(reference) : reference
        let key: ([String: Any]) -> String = { row in entries ? Self.entryKey(row) : Self.subscriptionKey(row) }
        var unmatched = theirs.enumerated().map { ($0.offset, $0.element) }
        var pairs: [(Int, [String: Any], [String: Any])] = []
        var onlyOurs: [[String: Any]] = []
        for row in ours {
            if let at = unmatched.firstIndex(where: { key($0.1) == key(row) }) {
                pairs.append((unmatched[at].0, row, unmatched[at].1))
                unmatched.remove(at: at)
            } else {
                onlyOurs.append(row)
            }
        }
        var onlyTheirs = unmatched.map(\.1)
        // Entries of the cut-off's instant: each side may show a different one of them.
        if entries, !onlyOurs.isEmpty, onlyOurs.count == onlyTheirs.count,
            let lastOurs = ours.last, let lastTheirs = theirs.last,
            onlyOurs.allSatisfy({ Self.tieKey($0) == Self.tieKey(lastOurs) }),
            onlyTheirs.allSatisfy({ Self.tieKey($0) == Self.tieKey(lastTheirs) })
        {
            for _ in onlyOurs { note("tie at the cut-off") }
            let dropped = Set(onlyOurs.map(key) + onlyTheirs.map(key))
            ours.removeAll { dropped.contains(key($0)) }
            theirs.removeAll { dropped.contains(key($0)) }
            onlyOurs = []
            onlyTheirs = []
        }
        var found: [String] = []
        if ours.count != theirs.count {
            found.append("\(file): \(ours.count) \(list) in feedmerge's, \(theirs.count) in \(self.reference)'s")
        }
        // The order: the reference's places of the matched rows, in feedmerge's order. A
        // subscription Venus names "" sorts first there, and stays out of this.
        let ordered = pairs.filter { entries || !isUnnamedInVenus(ours: $0.1, theirs: $0.2) }
        if let first = zip(ordered, ordered.dropFirst()).first(where: { $0.0.0 > $0.1.0 }) {
            found.append(
                "\(file): order differs at \(entries ? "entry" : "subscription") «\(key(first.1.1))»: "
                    + "\(self.reference) shows it before «\(key(first.0.1))»")
        }
        for (side, rows) in [("feedmerge's only", onlyOurs), ("\(self.reference)'s only", onlyTheirs)]
        where !rows.isEmpty {
            found.append(
                "\(file): \(rows.count) \(list) \(side): "
                    + rows.prefix(limit).map { "«\(key($0))»" }.joined(separator: ", "))
        }
        pairs.sort { $0.0 < $1.0 }
        for (index, ours, theirs) in pairs {
            let keys = Set(ours.keys).union(theirs.keys).sorted()
            let differing = keys.filter { field in
                guard Self.show(ours[field]) != Self.show(theirs[field]) else { return false }
                if let rule = documentedRule(field: field, ours: ours, theirs: theirs, entries: entries) {
                    note(rule)
                    return false
                }
                return true
            }
            guard !differing.isEmpty else { continue }
            let label = "\(file) \(entries ? "entry" : "subscription") \(index + 1)"
            found.append(
                "\(label) («\(Self.show(theirs["title"] ?? theirs["name"] ?? ours["title"] ?? ours["name"]))»):")
            for field in differing {
                found.append(
                    "    \(field): feedmerge «\(Self.show(ours[field]))» vs \(self.reference) «\(Self.show(theirs[field]))»"
                )
            }
        }
        lines += found.prefix(limit * 3)
        if found.count > limit * 3 { lines.append("\(file): … \(found.count - limit * 3) more \(list) lines") }
    }

    /// A subscription the configuration does not name, which Venus names "".
    private func isUnnamedInVenus(ours: [String: Any], theirs: [String: Any]) -> Bool {
        reference == "Venus" && theirs["name"] as? String == ""
            && !documented.named.contains(ours["feed"] as? String ?? "")
    }

    /// The documented difference a field of a matched row shows, or nil.
    private func documentedRule(field: String, ours: [String: Any], theirs: [String: Any], entries: Bool)
        -> String?
    {
        if !entries {
            if field == "name", isUnnamedInVenus(ours: ours, theirs: theirs) { return "unnamed subscription" }
            if ["name", "mark"].contains(field), reference == "Venus",
                let feed = ours["feed"] as? String, feed == documented.undatableFeed
            {
                return "feed Venus cannot date"
            }
            return nil
        }
        let link = ours["link"] as? String ?? ""
        if field == "id", documented.enclosureIdentified.contains(link) { return "id from an enclosure" }
        if reference == "Venus", documented.undatableFeedEntries.contains(link),
            ["channel", "shown", "source", "author", "title"].contains(field)
        {
            return "feed Venus cannot date"
        }
        // Planet 2.0's parser names no author_name unless the author has an email address.
        if field == "author", reference == "Planet 2.0", theirs["author"] == nil || theirs["author"] is NSNull,
            let author = ours["author"] as? String, !author.contains("@")
        {
            return "author without an email address"
        }
        return nil
    }

    /// What matches an entry on both sides: its link, else its title.
    private static func entryKey(_ entry: [String: Any]) -> String {
        Self.show(entry["link"] is String ? entry["link"] : entry["title"])
    }

    /// What matches a subscription on both sides: its site, else its feed's title, else its
    /// feed (the programs may name a feed by the address it was fetched from or by the one
    /// it gives itself).
    private static func subscriptionKey(_ subscription: [String: Any]) -> String {
        for field in ["link", "title", "feed"] {
            if let value = subscription[field] as? String, !value.isEmpty { return value }
        }
        return Self.show(subscription["name"])
    }

    /// What makes two entries "of the same instant": a feed's date; on a page, the day and
    /// the time shown (after "at", where a theme puts an author first).
    private static func tieKey(_ entry: [String: Any]) -> String {
        if let date = entry["date"] as? String { return date }
        let shown = entry["shown"] as? String ?? ""
        let time = shown.range(of: " at ", options: .backwards).map { String(shown[$0.upperBound...]) } ?? shown
        return "\(entry["day"] as? String ?? "")|\(time)"
    }

    /// The entries with each run of one instant (`tieKey`) in link order: the programs
    /// order entries of the same instant differently, and neither order is wrong.
    private static func tiesOrdered(_ entries: [[String: Any]]) -> [[String: Any]] {
        let link = { (entry: [String: Any]) in "\(entry["link"] ?? entry["title"] ?? "")" }
        var result: [[String: Any]] = []
        var run: [[String: Any]] = []
        for entry in entries {
            if let last = run.last, tieKey(last) != tieKey(entry) {
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

    /// The rules that set rows aside, with their counts.
    var setAsideText: String {
        setAside.isEmpty
            ? "nothing set aside"
            : "set aside as documented: "
                + setAside.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
    }
}
