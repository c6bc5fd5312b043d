import Basics
import FeedModel
import FeedState

/// When a feed is next due: one policy for every store and every run that
/// fetches only what is due (`--due-only`). From the facts a state keeps:
/// - **never fetched**: due now; **gone** (410): never;
/// - **failing**: the shortest interval doubled with each consecutive
///   failure (15 min, 30 min, 1 h, …), at most `longestBackoff` (7 days);
/// - **working**: a quarter of the feed's mean time between entries (its
///   entries kept over the time they were collected; none in all that time
///   counts as one), so a new post waits about an eighth of a posting
///   interval on average; a feed seen for less than a day is asked every
///   hour; bounded by `shortest` and `longest` (15 min, 24 h);
///   and never more often than the feed itself says it changes: RSS's `ttl`
///   (minutes) or the Syndication module's `updatePeriod`/`updateFrequency`,
///   honoured up to `longestBackoff`;
/// - spread by a jitter of ±`jitter` of the interval, drawn from the feed's
///   address and its last fetch, so feeds added together do not stay in
///   step, and the same state always gives the same schedule;
/// - never before what the server asked (`Retry-After`, `Cache-Control:
///   max-age`, `Expires`: the record's `notBefore`);
/// - never in an hour or on a day the feed asks to be left alone (RSS 2.0
///   `skipHours`, `skipDays`, in GMT): then at the start of the next hour it
///   allows (a feed that skips every hour of the week has its hints ignored).
public struct FeedSchedule: Sendable, Equatable {
    public var shortest: Int64 = 15 * 60
    public var longest: Int64 = 24 * 3_600
    public var longestBackoff: Int64 = 7 * 86_400
    /// A feed seen for less than a day: no history to estimate from.
    public var withoutHistory: Int64 = 3_600
    private let day: Int64 = 86_400
    public var jitter: Double = 0.1

    public init() {}

    /// What the policy reads of a feed.
    public struct Facts: Sendable {
        public var url: String
        public var lastFetch: Timestamp?
        public var consecutiveFailures: Int = 0
        public var gone = false
        /// The server's: Retry-After, Cache-Control max-age, Expires.
        public var notBefore: Timestamp?
        /// RSS `ttl`, in minutes.
        public var ttlMinutes: Int?
        /// The Syndication module's interval, in seconds.
        public var updateInterval: Int?
        /// RSS 2.0 `skipHours` (0–23 GMT) and `skipDays` (1 Monday … 7 Sunday).
        public var skipHours: Set<Int> = []
        public var skipDays: Set<Int> = []
        /// Entries kept of the feed, and since when they were collected.
        public var entries: Int = 0
        public var collectedSince: Timestamp?

        public init(url: String, lastFetch: Timestamp?) {
            self.url = url
            self.lastFetch = lastFetch
        }
    }

    /// When the feed is next due; nil: never (gone).
    public func nextCheck(_ facts: Facts) -> Timestamp? {
        if facts.gone { return nil }
        guard let last = facts.lastFetch else { return Timestamp(secondsSince1970: Int64.min / 2) }
        var interval: Int64
        if facts.consecutiveFailures > 0 {
            let doublings = min(facts.consecutiveFailures - 1, 40)
            interval = min(shortest << Int64(doublings), longestBackoff)
        } else {
            interval = working(facts, at: last)
        }
        interval = Int64((Double(interval) * (1 + jitter * Self.spread(facts.url, last))).rounded())
        let due = last.secondsSince1970 + max(interval, 1)
        return Timestamp(
            secondsSince1970: allowed(max(due, facts.notBefore?.secondsSince1970 ?? due), facts))
    }

    /// The first time from `time` on that is in no skipped hour or day.
    private func allowed(_ time: Int64, _ facts: Facts) -> Int64 {
        guard !facts.skipHours.isEmpty || !facts.skipDays.isEmpty else { return time }
        var candidate = time
        for _ in 0..<(24 * 7) {
            let days = candidate.floorDivided(by: 86_400)
            let hour = Int((candidate - days * 86_400) / 3_600)
            // 1970-01-01 was a Thursday: day 0 is weekday 4 (Monday 1 … Sunday 7).
            let weekday = Int(days + 3 - (days + 3).floorDivided(by: 7) * 7) + 1
            if !facts.skipHours.contains(hour) && !facts.skipDays.contains(weekday) { return candidate }
            candidate = (candidate.floorDivided(by: 3_600) + 1) * 3_600
        }
        return time  // every hour of the week skipped: the hints say nothing usable
    }

    /// When a feed the state knows is next due, from its record and the
    /// entries it keeps (collected since the feed was first seen, at most
    /// `keepDays` back); nil: never.
    public func nextCheck(record: FeedRecord, entriesStored: Int, keepDays: Int, now: Timestamp) -> Timestamp? {
        var facts = Facts(url: record.url, lastFetch: record.lastFetch)
        facts.consecutiveFailures = record.consecutiveFailures
        facts.gone = record.gone
        facts.notBefore = record.notBefore
        facts.ttlMinutes = record.metadata?.ttlMinutes
        facts.updateInterval = record.metadata?.updateInterval
        facts.skipHours = record.metadata?.skipHours ?? []
        facts.skipDays = record.metadata?.skipDays ?? []
        facts.entries = entriesStored
        let retention = Int64(keepDays) * 86_400
        facts.collectedSince = Timestamp(
            secondsSince1970: max(record.firstSeen.secondsSince1970, now.secondsSince1970 - retention))
        return nextCheck(facts)
    }

    /// Whether the feed is due at `now`.
    public func isDue(_ facts: Facts, now: Timestamp) -> Bool {
        guard let next = nextCheck(facts) else { return false }
        return next <= now
    }

    /// A working feed's interval: from its posting rate, within the bounds, never under what it declares.
    private func working(_ facts: Facts, at last: Timestamp) -> Int64 {
        // A quarter of the mean time between posts over the time they were collected (no post
        // in all that time: the time itself); a feed only just seen has no history yet.
        var interval = withoutHistory
        if let since = facts.collectedSince {
            let span = last.secondsSince1970 - since.secondsSince1970
            if span >= day { interval = span / Int64(max(facts.entries, 1)) / 4 }
        }
        interval = min(max(interval, shortest), longest)
        let declared = max(Int64(facts.ttlMinutes ?? 0) * 60, Int64(facts.updateInterval ?? 0))
        return max(interval, min(declared, longestBackoff))
    }

    /// A number in [-1, 1) fixed by the feed's address and its last fetch.
    static func spread(_ url: String, _ last: Timestamp) -> Double {
        let hash = FNV1a.hash(url + "\n" + String(last.secondsSince1970))
        return Double(hash % 2_000_000) / 1_000_000 - 1
    }
}
