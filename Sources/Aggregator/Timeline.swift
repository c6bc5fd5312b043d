import FeedModel

/// The rules that decide which entries the timeline keeps and where.
public struct TimelineRules: Sendable {
    public enum FuturePolicy: String, Sendable { case keep, clamp, drop }

    /// At most this many entries (nil: all). Default 1,000.
    public var limit: Int? = 1000
    /// At most this many of the newest entries of each feed (nil: all).
    public var perFeed: Int?
    /// Entries dated before this are dropped.
    public var since: Timestamp?
    /// Entries dated after `now`: clamped to `now` (default), kept, or dropped.
    public var future: FuturePolicy = .clamp
    /// The run's time: the clock, `--now`, or `SOURCE_DATE_EPOCH`.
    public var now: Timestamp

    public init(now: Timestamp) { self.now = now }
}

/// The merged timeline: newest first, deduplicated, optionally bounded.
///
/// Entries are placed by binary search (`SortedKeys`); equal dates keep
/// subscription order, then feed order, so the same inputs always give the
/// same timeline, whatever order the feeds arrive in. The same entry in two
/// feeds (same id, else same normalized link) is kept once: the
/// earliest-dated copy, which records the other feeds in `alsoIn`.
public struct Timeline {
    public let rules: TimelineRules
    private var keys = SortedKeys<TimelineKey>()
    private var items: [TimelineKey: MergedEntry] = [:]
    /// Identity ("id:..." or "link:...") to the key of the entry that has it.
    private var identities: [String: TimelineKey] = [:]

    public init(rules: TimelineRules) { self.rules = rules }

    public var count: Int { keys.count }

    /// The entries, newest first.
    public var entries: [MergedEntry] {
        keys.all.map { key in
            var item = items[key]!
            item.alsoIn.sort()
            return item
        }
    }

    /// The date an entry is sorted by, after the rules: `published`, else
    /// `updated`, else the feed's own date, else the run's time; future
    /// dates clamped (or dropped: nil) per `rules.future`.
    public func date(of entry: Entry, feedDate: Timestamp?) -> Timestamp? {
        let date = entry.published ?? entry.updated ?? feedDate ?? rules.now
        guard date > rules.now else { return date }
        switch rules.future {
        case .keep: return date
        case .clamp: return rules.now
        case .drop: return nil
        }
    }

    /// Inserts one feed's entries (`subscription` is its place in the list).
    /// - Returns: how many of them the timeline kept.
    @discardableResult
    public mutating func insert(feed parsed: ParsedFeed, source: FeedSource, subscription: Int) -> Int {
        let feedDate = parsed.metadata.updated ?? parsed.metadata.published
        var dated: [(Int, Entry, Timestamp)] = []
        for (index, original) in parsed.entries.enumerated() {
            guard let date = date(of: original, feedDate: feedDate) else { continue }
            var entry = original
            if rules.future == .clamp {
                // The entry's own dates are clamped too, so every output agrees.
                entry.published = entry.published.map { min($0, rules.now) }
                entry.updated = entry.updated.map { min($0, rules.now) }
            }
            if let since = rules.since, date < since { continue }
            dated.append((index, entry, date))
        }
        if let perFeed = rules.perFeed, dated.count > perFeed {
            dated.sort { $0.2 != $1.2 ? $0.2 > $1.2 : $0.0 < $1.0 }
            dated.removeSubrange(perFeed...)
        }
        var kept = 0
        for (index, entry, date) in dated {
            let key = TimelineKey(date: date.secondsSince1970, subscription: Int32(subscription), entry: Int32(index))
            if insert(MergedEntry(entry: entry, date: date, source: source), key: key) { kept += 1 }
        }
        return kept
    }

    /// - Returns: whether the entry is in the timeline afterwards.
    mutating func insert(_ item: MergedEntry, key: TimelineKey) -> Bool {
        // A full timeline rejects an entry older than its last in O(1).
        if let limit = rules.limit, keys.count >= limit, let last = keys.last, !(key < last) { return false }
        let names = Self.identities(of: item.entry)
        var found: TimelineKey? = nil
        for name in names where found == nil { found = identities[name] }
        if let existingKey = found, var existing = items[existingKey] {
            // The earlier-dated copy stays; on equal dates, the one listed first.
            let newIsEarlier = key.date < existingKey.date || (key.date == existingKey.date && key < existingKey)
            if newIsEarlier { return replace(existingKey, existing, with: item, key: key, names: names) }
            if existing.source.feedURL != item.source.feedURL, !existing.alsoIn.contains(item.source.feedURL) {
                existing.alsoIn.append(item.source.feedURL)
                items[existingKey] = existing
            }
            return false
        }
        add(item, key: key, names: names)
        return true
    }

    /// The later copy `existing` gives way to the earlier `item`.
    private mutating func replace(
        _ existingKey: TimelineKey, _ existing: MergedEntry, with item: MergedEntry, key: TimelineKey, names: [String]
    ) -> Bool {
        remove(existingKey)
        var item = item
        item.alsoIn = existing.alsoIn
        if existing.source.feedURL != item.source.feedURL { item.alsoIn.append(existing.source.feedURL) }
        item.alsoIn.removeAll { $0 == item.source.feedURL }
        add(item, key: key, names: names + Self.identities(of: existing.entry))
        return true
    }

    private mutating func add(_ item: MergedEntry, key: TimelineKey, names: [String]) {
        keys.insert(key)
        items[key] = item
        for name in names { identities[name] = key }
        if let limit = rules.limit, keys.count > limit, let evicted = keys.last {
            remove(evicted)
        }
    }

    private mutating func remove(_ key: TimelineKey) {
        guard let item = items.removeValue(forKey: key) else { return }
        keys.remove(key)
        for name in Self.identities(of: item.entry) where identities[name] == key {
            identities[name] = nil
        }
    }

    /// The names an entry is known by: its id, and its normalized link.
    static func identities(of entry: Entry) -> [String] {
        var names: [String] = []
        if let id = entry.id?.trimmingCharacters(in: " \t\r\n"), !id.isEmpty { names.append("id:" + id) }
        if let link = entry.link, !link.isEmpty { names.append("link:" + LinkNormalizer.normalize(link)) }
        return names
    }
}
