import FeedModel

/// Which of one feed's stored entries retention keeps. The one rule every
/// store applies (each persists what it decides): entries still listed
/// (seen in the feed's last fetch that listed entries: the latest last-seen
/// time) are never dropped; the others go when last seen before the cutoff
/// (`keepDays` before the run) or beyond the newest `keepPerFeed` in the
/// store's order. (Not the feed's last success: a 304 moves that on, and the
/// entries it still lists would count as gone.)
public struct RetentionRule: Sendable {
    /// Entries last seen before this (seconds since 1970) go, unless still listed.
    public let cutoff: Int64
    public let keepPerFeed: Int

    public init(keepDays: Int, keepPerFeed: Int, now: Timestamp) {
        cutoff = now.secondsSince1970 - Int64(keepDays) * 86_400
        self.keepPerFeed = keepPerFeed
    }

    /// What places an entry among its feed's: when it was last seen, its
    /// place in the feed then, and its key.
    public struct Place: Sendable {
        public var lastSeen: Int64
        public var position: Int
        public var key: String

        @inlinable
        public init(lastSeen: Int64, position: Int, key: String) {
            self.lastSeen = lastSeen
            self.position = position
            self.key = key
        }

        /// The order a store gives a feed's entries in: latest seen first,
        /// then feed order, then key (two entries can share a place when a
        /// run reuses the time of the one before: `--now`).
        @inlinable
        public static func inStoreOrder(_ a: Place, _ b: Place) -> Bool {
            if a.lastSeen != b.lastSeen { return a.lastSeen > b.lastSeen }
            return a.position != b.position ? a.position < b.position : a.key < b.key
        }
    }

    /// - Returns: the indices of the entries kept, ascending; nil when every one is.
    public func kept(_ places: [Place]) -> [Int]? {
        guard let lastListed = places.map(\.lastSeen).max() else { return nil }
        let newest = Set(places.indices.sorted { Place.inStoreOrder(places[$0], places[$1]) }.prefix(keepPerFeed))
        let kept = places.indices.filter { index in
            places[index].lastSeen >= lastListed || (places[index].lastSeen >= cutoff && newest.contains(index))
        }
        return kept.count < places.count ? kept : nil
    }
}

/// When a run prunes every feed's entries (retention by age), not only the
/// feeds whose listing changed: once a day, and never on a new state, which
/// has nothing old to drop (its first full pass is a day away). The same for
/// every store.
public enum RetentionSchedule {
    /// - Parameters:
    ///   - feeds: the feeds the run asks for; nil asks for all now.
    ///   - lastFull: when the last full pass was (0: never).
    public static func isFullPass(feeds: [String]?, lastFull: Int64, now: Int64) -> Bool {
        feeds == nil || (lastFull > 0 && now - lastFull >= 86_400)
    }

    /// Whether the store notes `now` as its last full pass (a new state notes
    /// its first run, from which the day is counted).
    public static func notesPass(full: Bool, lastFull: Int64) -> Bool { full || lastFull == 0 }
}
