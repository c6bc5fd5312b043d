import Basics
import FeedModel
import FeedParse

/// The rules that decide which entries the timeline keeps and where.
public struct TimelineRules: Sendable {
    public enum FuturePolicy: String, Sendable, CaseIterable { case keep, clamp, drop }

    /// At most this many entries (nil: all). Default 1,000.
    public var limit: Int? = TimelineRules.defaultLimit
    public static let defaultLimit = 1000
    /// At most this many of the newest entries of each feed (nil: all).
    public var perFeed: Int?
    /// Entries dated before this are dropped.
    public var since: Timestamp?
    /// Entries dated after `now`: clamped to `now` (default), kept, or
    /// dropped, by `EntryDating` (which dates a remembered entry's future
    /// date by its first-seen time, whatever this says).
    public var future: FuturePolicy = .clamp
    /// The run's time: the clock, `--now`, or `SOURCE_DATE_EPOCH`.
    public var now: Timestamp
    /// Whose rules date an entry (`EntryDating`): feedmerge's, or those of the
    /// planet program a configuration was written for.
    public var dating: DatingStyle = .feedmerge

    public enum DatingStyle: Sendable {
        /// An entry's `published`, else `updated` (an edit does not move it);
        /// an undated one its feed's date, else when it was first seen.
        case feedmerge
        /// Planet Venus: `updated`, else `published`; an undated entry its
        /// feed's date, else when it was first seen.
        case venus
        /// Planet 2.0: `updated`, else `published`; an undated entry when it
        /// was first seen; and a feed without a date of its own shows only
        /// the first `new_feed_items` of the entries it listed when it was
        /// first fetched (its backlog stays hidden).
        case planet2
    }

    public init(now: Timestamp) { self.now = now }
}

/// The merged timeline: newest first, deduplicated, optionally bounded.
///
/// Entries are placed by binary search (`SortedKeys`); equal dates keep
/// subscription order, then feed order, so the same inputs always give the
/// same timeline, whatever order the feeds arrive in. The same entry in two
/// feeds (same id, else same normalized link) is kept once: the
/// earliest-dated copy, which records the other feeds in `alsoIn`; but a
/// feed never replaces or hides another feed's entry with a name (id or
/// link) that is not its own site's (`FeedSite`, `Meeting`).
public struct Timeline: Sendable {
    public let rules: TimelineRules
    private var keys = SortedKeys<TimelineKey>()
    /// The entries by slot (`TimelineKey.slot`); freed slots are reused.
    private var storage: [MergedEntry?] = []
    /// How to make the entry in each slot that came in deferred (`Deferred`).
    private var makers: [(@Sendable () -> Entry)?] = []
    private var freeSlots: [Int32] = []
    /// The names of the entry in each slot, worked out when it came in.
    var namesBySlot: [EntryNames] = []
    /// Entry ids and normalized links to the key of the entry that has them.
    var byID = NameIndex()
    var byLink = NameIndex()
    /// Each feed's site, by its place in the list: worked out once per feed, the first time one
    /// of its entries meets another feed's.
    var sites: [Int32: (feedURL: String, site: FeedSite)] = [:]
    /// Every copy merged into another entry, in the order they met.
    public private(set) var duplicates: [Duplicate] = []

    public init(rules: TimelineRules) { self.rules = rules }

    public var count: Int { keys.count }

    /// When the timeline is full, the date of its last entry: nothing older
    /// can get in. nil while there is room.
    public var cutoff: Timestamp? {
        guard let limit = rules.limit, keys.count >= limit, let last = keys.last else { return nil }
        return Timestamp(secondsSince1970: last.date)
    }

    /// Each feed's newest entry in the timeline, by the feed's address
    /// (`FeedSource.feedURL`); no entry is made.
    public var newestByFeed: [String: Timestamp] {
        var newest: [String: Timestamp] = [:]
        for key in keys.all {
            guard let item = storage[Int(key.slot)], newest[item.source.feedURL] == nil else { continue }
            newest[item.source.feedURL] = item.date
        }
        return newest
    }

    /// The entries, newest first.
    public var entries: [MergedEntry] {
        let copy = self  // shares the storage until `takeEntries` moves out of it
        return copy.takeEntries()
    }

    /// The entries, newest first, moved out rather than copied: the end of
    /// a timeline's life, when the outputs are written.
    public consuming func takeEntries() -> [MergedEntry] {
        var storage = self.storage
        self.storage = []
        return keys.all.map { key in
            var item = storage[Int(key.slot)].take()!
            if let make = makers[Int(key.slot)] {
                item.entry = make()
                item.creditFeedAuthors()
            }
            item.alsoIn.sort()
            return item
        }
    }

    /// An entry the timeline makes only if it keeps it: one served from a
    /// state, whose decoding is most of what it would cost, and which a full
    /// timeline often pushes out again. Its id and link name it meanwhile.
    public struct Deferred: Sendable {
        public var id: String?
        public var link: String?
        /// The entry, as `insert(feed:...)` would have been given it.
        public var make: @Sendable () -> Entry

        public init(id: String?, link: String?, make: @escaping @Sendable () -> Entry) {
            self.id = id
            self.link = link
            self.make = make
        }
    }

    /// Inserts one feed's entries (`subscription` is its place in the list),
    /// each sorted by its date in `dates` (nil: not inserted), as the run's
    /// dating policy (`EntryDating`) gave them.
    /// - Returns: how many of them the timeline kept.
    @discardableResult
    public mutating func insert(
        feed parsed: consuming ParsedFeed, dates: [Timestamp?], source: FeedSource, subscription: Int
    ) -> Int {
        insert(
            parsed.entries.count, dates: dates, source: source, subscription: subscription,
            link: { parsed.entries[$0].link }, identity: { Self.textIdentity(of: parsed.entries[$0]) }
        ) { index in
            var entry = Entry()
            swap(&entry, &parsed.entries[index])  // moved, not copied: the parsed feed is done with
            return (entry, nil)
        }
    }

    /// `insert(feed:dates:source:subscription:)` for entries made only if
    /// the timeline keeps them (at `takeEntries`): the same entries with
    /// the same dates give the same timeline either way.
    @discardableResult
    public mutating func insert(
        deferred: [Deferred], dates: [Timestamp?], source: FeedSource, subscription: Int
    ) -> Int {
        insert(
            deferred.count, dates: dates, source: source, subscription: subscription,
            link: { deferred[$0].link }, identity: { Self.textIdentity(of: deferred[$0].make()) }
        ) { index in
            // Named by its id and link until it is made.
            var entry = Entry()
            entry.id = deferred[index].id
            entry.link = deferred[index].link
            return (entry, deferred[index].make)
        }
    }

    /// One feed's `count` entries, whole or deferred.
    /// - Parameters:
    ///   - link: an entry's link, as it has it.
    ///   - identity: what tells apart entries with the same link (`textIdentity`).
    ///   - entry: the entry at an index as it goes in (asked once, only for one that may get
    ///     in), and how to make it when it goes in deferred.
    private mutating func insert(
        _ count: Int, dates: [Timestamp?], source: FeedSource, subscription: Int, link: (Int) -> String?,
        identity: (Int) -> String, entry: (Int) -> (Entry, (@Sendable () -> Entry)?)
    ) -> Int {
        precondition(dates.count == count, "one date (or nil) per entry")
        let chosen = choose(dates, subscription: subscription)
        guard !chosen.isEmpty else { return 0 }
        let links = (0..<count).map { Self.normalizedLink(link($0)) }
        let shared = Self.sharedLinks(links, identity: identity)
        var kept = 0
        for (index, date) in chosen {
            let key = TimelineKey(date: date.secondsSince1970, subscription: Int32(subscription), entry: Int32(index))
            // A full timeline rejects an entry older than its last in O(1), before copying anything.
            if rejects(key) { continue }
            let (made, make) = entry(index)
            let link = links[index].flatMap { shared.isEmpty || !shared.contains($0.name) ? $0 : nil }
            let names = EntryNames(id: Self.identity(of: made.id, in: Int32(subscription)), normalizedLink: link)
            var item = MergedEntry(entry: made, date: date, source: source)
            // A deferred entry is credited when it is made (`takeEntries`).
            if make == nil { item.creditFeedAuthors() }
            if insert(item, key: key, names: names, make: make) {
                kept += 1
            }
        }
        return kept
    }

    /// Whether an entry of the feed at `subscription` dated `date` or
    /// earlier may still get in: not once the timeline is full and its last
    /// entry comes before any such one, nor when `date` is before `since`.
    public func mayAdmit(datedNoLaterThan date: Timestamp, subscription: Int) -> Bool {
        if let since = rules.since, date < since { return false }
        // The feed's first entry at that date comes before every other it could have.
        return !rejects(TimelineKey(date: date.secondsSince1970, subscription: Int32(subscription), entry: 0))
    }

    private var isFull: Bool {
        guard let limit = rules.limit else { return false }
        return keys.count >= limit
    }

    /// Whether the timeline is full and its last entry comes before `key`:
    /// an entry there cannot get in.
    private func rejects(_ key: TimelineKey) -> Bool {
        guard isFull, let last = keys.last else { return false }
        return !(key < last)
    }

    /// The entries of one feed that may get in, by index, with their dates:
    /// dated, not before `since`, the newest `perFeed`, and (a full timeline
    /// rejects an entry older than its last in O(1)) newer than the last.
    private func choose(_ dates: [Timestamp?], subscription: Int) -> [(index: Int, date: Timestamp)] {
        var chosen: [(index: Int, date: Timestamp)] = []
        chosen.reserveCapacity(dates.count)
        for (index, date) in dates.enumerated() {
            guard let date else { continue }
            if let since = rules.since, date < since { continue }
            chosen.append((index, date))
        }
        if let perFeed = rules.perFeed, chosen.count > perFeed {
            chosen.sort { $0.date != $1.date ? $0.date > $1.date : $0.index < $1.index }
            chosen.removeSubrange(perFeed...)
        }
        if isFull {
            let feed = Int32(subscription)
            chosen.removeAll {
                rejects(TimelineKey(date: $0.date.secondsSince1970, subscription: feed, entry: Int32($0.index)))
            }
        }
        return chosen
    }

    /// A link as it names an entry (normalized once: links also show which
    /// ones a feed shares among several entries, over the whole feed,
    /// whatever gets in, so that arrival order does not matter).
    private static func normalizedLink(_ link: String?) -> EntryName? {
        link.flatMap { $0.isEmpty ? nil : EntryName(LinkNormalizer.normalize($0)) }
    }

    /// - Parameter make: for an entry that came in deferred, how to make it.
    /// - Returns: whether the entry is in the timeline afterwards.
    mutating func insert(
        _ item: consuming MergedEntry, key: TimelineKey, names: EntryNames? = nil,
        make: (@Sendable () -> Entry)? = nil
    ) -> Bool {
        if rejects(key) { return false }
        let names =
            names ?? EntryNames(id: Self.identity(of: item.entry.id, in: key.subscription), link: item.entry.link)
        if let existingKey = existingKey(for: names),
            var existing = storage[Int(existingKey.slot)].take()
        {
            // The earlier-dated copy stays; on equal dates, the one listed first.
            var newIsKept = key.date < existingKey.date || (key.date == existingKey.date && key < existingKey)
            if existingKey.subscription != key.subscription {
                // Two feeds' copies: which one may stand for the entry depends on whose site's names they share.
                let shared = SharedNames(
                    id: names.id.flatMap { byID[$0] == existingKey ? $0 : nil },
                    link: names.link.flatMap { byLink[$0] == existingKey ? $0 : nil })
                switch meeting(
                    of: item.source, key, names, with: existing.source, existingKey, sharing: shared,
                    newIsFirst: newIsKept)
                {
                case .merged(let newKept):
                    newIsKept = newKept
                case .apart(let newHoldsNames):
                    storage[Int(existingKey.slot)] = existing
                    addApart(
                        item, key: key, names: names, beside: existingKey, shared: shared, holdsShared: newHoldsNames,
                        make: make)
                    return true
                }
            }
            duplicates.append(
                Duplicate(
                    name: item.entry.id ?? item.entry.link ?? "", feedURL: item.source.feedURL,
                    otherFeedURL: existing.source.feedURL))
            if newIsKept {
                // The replaced copy's names (and those of the copies it replaced) now lead here too.
                var names = names
                names.replaced = [namesBySlot[Int(existingKey.slot)]]
                remove(existingKey)
                item.alsoIn = existing.alsoIn
                if existing.source.feedURL != item.source.feedURL { item.alsoIn.append(existing.source.feedURL) }
                let feedURL = item.source.feedURL
                item.alsoIn.removeAll { $0 == feedURL }
                add(item, key: key, names: names, make: make)
                return true
            }
            if existing.source.feedURL != item.source.feedURL, !existing.alsoIn.contains(item.source.feedURL) {
                existing.alsoIn.append(item.source.feedURL)
            }
            storage[Int(existingKey.slot)] = existing
            return false
        }
        add(item, key: key, names: names, make: make)
        return true
    }

    /// The key of the entry an incoming one is a copy of: the same id, else
    /// the same normalized link. Within one feed, two entries with different
    /// ids are different entries even when their links agree (feeds that
    /// link every post to the home page).
    /// The name an id is matched by. An id that is a URI (`tag:`, `urn:`,
    /// `http:`) names one entry wherever it appears; any other (`1`,
    /// `t3_42tizy`, `post-42`) only means something within its feed, so it
    /// is qualified by the feed's place in the list (a short prefix: most
    /// such names stay small strings, no allocation): two feeds' entries `1`
    /// are two entries.
    static func identity(of id: String?, in subscription: Int32) -> String? {
        guard let id, !id.isEmpty else { return nil }
        return URISyntax.hasScheme(id) ? id : String(subscription) + "\u{0}" + id
    }

    private func existingKey(for names: EntryNames) -> TimelineKey? {
        if let id = names.id, let found = byID[id] { return found }
        return names.link.flatMap { byLink[$0] }
    }

    /// The links one feed gives to several different entries (a home page,
    /// a day page): within the feed they do not make those entries one, and
    /// across feeds they name no entry in particular, so they are not used
    /// to match at all. Entries are different when their ids differ; an
    /// entry without an id is told by its title and text (fifteen id-less
    /// podcast episodes that all link to the show's page are fifteen
    /// entries; one item listed twice is one). Decided per feed, before any
    /// entry goes in, so that the result does not depend on arrival order.
    /// - Parameter identity: what tells apart the entries at an index (only
    ///   asked of those whose link is repeated).
    private static func sharedLinks(_ links: [EntryName?], identity: (Int) -> String) -> Set<String> {
        // Most feeds give every entry its own link: the links' own hashes find
        // a repeat without hashing a string again; only then are ids compared.
        var seen = Set<Int>(minimumCapacity: links.count)
        var repeated = false
        for case let link? in links where !seen.insert(link.hash).inserted {
            repeated = true
            break
        }
        guard repeated else { return [] }
        var uses: [String: Int] = [:]
        for case let link? in links { uses[link.name, default: 0] += 1 }
        var idByLink: [String: String] = [:]
        var shared: Set<String> = []
        for index in links.indices {
            guard let link = links[index]?.name, uses[link, default: 0] > 1 else { continue }
            let identity = identity(index)
            if let other = idByLink.updateValue(identity, forKey: link), other != identity { shared.insert(link) }
        }
        return shared
    }

    /// An entry's id, else its title and text: what tells it from another
    /// entry of its feed with the same link.
    private static func textIdentity(of entry: Entry) -> String {
        entry.id.flatMap { $0.isEmpty ? nil : "id:" + $0 }
            ?? "text:" + (entry.title?.value ?? "") + "\n" + (entry.summary?.value ?? entry.content.first?.value ?? "")
    }

    mutating func add(
        _ item: consuming MergedEntry, key: TimelineKey, names: EntryNames, make: (@Sendable () -> Entry)?
    ) {
        var key = key
        if let slot = freeSlots.popLast() {
            key.slot = slot
            storage[Int(slot)] = item
            namesBySlot[Int(slot)] = names
            makers[Int(slot)] = make
        } else {
            key.slot = Int32(storage.count)
            storage.append(item)
            namesBySlot.append(names)
            makers.append(make)
        }
        keys.insert(key)
        names.forEach { isID, name in
            if isID { byID[name] = key } else { byLink[name] = key }
        }
        if let limit = rules.limit, keys.count > limit, let evicted = keys.last { remove(evicted) }
    }

    private mutating func remove(_ key: TimelineKey) {
        let slot = Int(key.slot)
        storage[slot] = nil
        makers[slot] = nil
        freeSlots.append(key.slot)
        keys.remove(key)
        // Every name that leads here goes, so none is left pointing at a slot a later entry reuses.
        namesBySlot[slot].forEach { isID, name in
            if isID {
                if byID[name] == key { byID[name] = nil }
            } else if byLink[name] == key {
                byLink[name] = nil
            }
        }
        namesBySlot[slot] = EntryNames()
    }
}

/// One copy of an entry merged into another: the name they share, the feed
/// of the copy that came in, and the feed of the one it met.
public struct Duplicate: Sendable, Hashable {
    /// The incoming copy's id, else its link.
    public var name: String
    public var feedURL: String
    public var otherFeedURL: String
}

/// The names an incoming copy shares with the entry it met (those of its
/// names that lead to that entry).
struct SharedNames: Sendable {
    var id: EntryName?
    var link: EntryName?
}

/// The names an entry is known by: its id, and its normalized link.
struct EntryNames: Sendable {
    var id: EntryName?
    var link: EntryName?
    /// The names of the copies this entry replaced as the earliest-dated,
    /// which lead to it too.
    var replaced: [EntryNames] = []

    /// Every name, own and replaced; `isID` tells which index it belongs in.
    func forEach(_ body: (_ isID: Bool, _ name: EntryName) -> Void) {
        if let id { body(true, id) }
        if let link { body(false, link) }
        for names in replaced { names.forEach(body) }
    }

    init() {}

    /// Forgets the shared names, own and replaced: another entry holds them now.
    mutating func drop(_ shared: SharedNames) {
        if let dropped = shared.id, id?.name == dropped.name { id = nil }
        if let dropped = shared.link, link?.name == dropped.name { link = nil }
        for index in replaced.indices { replaced[index].drop(shared) }
    }

    /// - Parameter link: the link as the entry has it (normalized here).
    init(id: String?, link: String?) {
        self.init(id: id, normalizedLink: link.flatMap { $0.isEmpty ? nil : EntryName(LinkNormalizer.normalize($0)) })
    }

    init(id: String?, normalizedLink: EntryName?) {
        self.id = id.flatMap { $0.isEmpty ? nil : EntryName($0) }
        self.link = normalizedLink
    }
}
