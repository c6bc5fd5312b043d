import Basics
import FeedModel
import FeedState

/// When a feed is next due, and why: one policy for every run that keeps a
/// state (one-shot runs, `feedmerge planet`, workers). From the facts a
/// state keeps:
/// - **never fetched**: due now; **gone** (410): never;
/// - **working**: a quarter of the feed's mean time between entries (its
///   entries kept over the time they were collected; none in all that time
///   counts as one), so a new post waits about an eighth of a posting
///   interval on average; a feed seen for less than a day is asked every
///   hour; bounded by `shortest` (the floor: an hour) and `longest` (24 h);
///   and never more often than the feed itself says it changes: RSS's `ttl`
///   (minutes) or the Syndication module's `updatePeriod`/`updateFrequency`,
///   honoured up to `longestBackoff` (7 days); lengthened by up to
///   `jitter` of itself, so feeds added together do not stay in step;
/// - **failing**: `shortest` doubled with each consecutive failure, at most
///   `longestBackoff`; a feed behind bot protection waits `blockedBackoff`
///   (4 h) doubled the same way; a `Retry-After` longer than the backoff
///   replaces it; the whole wait is then lengthened by up to itself (a
///   number fixed by the feed's address and last fetch), so feeds that
///   failed together come back spread over the window;
/// - never before what the server asked (`Cache-Control: max-age`,
///   `Expires`, `Retry-After`: the record's `notBefore`), nor before its
///   host's wait (`hostNotBefore`: several of its feeds answered 429);
/// - never in an hour or on a day the feed asks to be left alone (RSS 2.0
///   `skipHours`, `skipDays`, in GMT), the run's own time included: then at
///   the start of the next hour it allows (a feed that skips every hour of
///   the week has its hints ignored).
/// Jitter only ever lengthens a wait: no floor is cut short. The same state
/// always gives the same schedule.
public struct FeedSchedule: Sendable, Equatable {
    /// The floor: no feed is asked twice within it (rachelbythebay's and Open RSS's hour).
    public var shortest: Int64 = 3_600
    public var longest: Int64 = 24 * 3_600
    public var longestBackoff: Int64 = 7 * 86_400
    /// A feed seen for less than a day: no history to estimate from.
    public var withoutHistory: Int64 = 3_600
    /// The first wait after a bot-protection challenge.
    public var blockedBackoff: Int64 = 4 * 3_600
    private let day: Int64 = 86_400
    /// How much longer than its interval a working feed may wait, at most.
    public var jitter: Double = 0.1
    /// How much longer than its backoff (or Retry-After) a failing feed may wait, at most.
    public var failureJitter: Double = 1

    public init() {}

    /// What the policy reads of a feed.
    public struct Facts: Sendable {
        public var url: String
        public var lastFetch: Timestamp?
        public var consecutiveFailures: Int = 0
        public var gone = false
        /// The last failure was a bot-protection challenge (`FeedReport.blockedReason`).
        public var blocked = false
        /// The server's: Retry-After, Cache-Control max-age, Expires.
        public var notBefore: Timestamp?
        /// The feed's host asked everyone to wait (several of its feeds answered 429).
        public var hostNotBefore: Timestamp?
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

    /// Why a feed is due when it is: what set the time (health's `next_check_reason`).
    public enum Reason: String, Sendable, Equatable {
        /// Never fetched: due now.
        case new
        /// The hour every feed waits at least.
        case floor
        /// Its posting rate (a quarter of the mean time between entries).
        case postingRate = "posting-rate"
        /// RSS `ttl` or the Syndication module's update period.
        case ttl
        /// The server's `Cache-Control: max-age` or `Expires`.
        case maxAge = "max-age"
        /// The server's `Retry-After`.
        case retryAfter = "Retry-After"
        /// Its host's `Retry-After`: several of the host's feeds answered 429.
        case hostRetryAfter = "host-Retry-After"
        /// Failing: the doubling backoff.
        case backoff
        /// Behind bot protection: at least 4 h, doubling.
        case blocked
        /// RSS `skipHours`/`skipDays`.
        case skipHours
        /// Gone (410): never asked again.
        case gone
    }

    /// When a feed is next due and why.
    public struct Check: Sendable, Equatable {
        /// nil: never (gone).
        public var time: Timestamp?
        public var reason: Reason
    }

    /// When the feed is next due; nil: never (gone).
    public func nextCheck(_ facts: Facts) -> Timestamp? { check(facts).time }

    /// When the feed is next due as of `now`: a time already past is `now`,
    /// unless `now` falls in an hour the feed skips.
    public func nextCheck(_ facts: Facts, now: Timestamp) -> Timestamp? { check(facts, now: now).time }

    /// `check(_:)`, seen from `now`.
    public func check(_ facts: Facts, now: Timestamp) -> Check {
        var result = check(facts)
        guard let time = result.time, time <= now else { return result }
        let allowed = allowed(now.secondsSince1970, facts)
        result.time = Timestamp(secondsSince1970: allowed)
        if allowed > now.secondsSince1970 { result.reason = .skipHours }
        return result
    }

    /// When the feed is next due and why, from its facts alone.
    public func check(_ facts: Facts) -> Check {
        if facts.gone { return Check(time: nil, reason: .gone) }
        guard let last = facts.lastFetch?.secondsSince1970 else {
            // Due now, unless its host asked everyone to wait.
            if let host = facts.hostNotBefore { return Check(time: host, reason: .hostRetryAfter) }
            return Check(time: Timestamp(secondsSince1970: Int64.min / 2), reason: .new)
        }
        let unit = Self.unit(facts.url, Timestamp(secondsSince1970: last))
        var due: Int64
        var reason: Reason
        if facts.consecutiveFailures > 0 {
            let doublings = min(facts.consecutiveFailures - 1, 40)
            let first = facts.blocked ? blockedBackoff : shortest
            var wait = min(first << Int64(doublings), max(longestBackoff, first))
            reason = facts.blocked ? .blocked : .backoff
            if let asked = facts.notBefore?.secondsSince1970, asked - last > wait {
                wait = asked - last
                reason = .retryAfter
            }
            due = last + wait + Int64((Double(wait) * failureJitter * unit).rounded(.down))
        } else {
            (due, reason) = working(facts, at: last)
            due = last + due + Int64((Double(due) * jitter * unit).rounded(.down))
            if let asked = facts.notBefore?.secondsSince1970, asked > due {
                due = asked
                reason = .maxAge
            }
        }
        if let host = facts.hostNotBefore?.secondsSince1970, host > due {
            due = host
            reason = .hostRetryAfter
        }
        let allowed = allowed(due, facts)
        if allowed > due { reason = .skipHours }
        return Check(time: Timestamp(secondsSince1970: allowed), reason: reason)
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

    /// The facts of a feed the state knows, from its record and the entries
    /// it keeps (collected since the feed was first seen, at most `keepDays` back).
    public static func facts(
        record: FeedRecord, entriesStored: Int, keepDays: Int, now: Timestamp, hostNotBefore: Timestamp? = nil
    ) -> Facts {
        var facts = Facts(url: record.url, lastFetch: record.lastFetch)
        facts.consecutiveFailures = record.consecutiveFailures
        facts.gone = record.gone
        facts.blocked = record.consecutiveFailures > 0 && FeedSchedule.isBlocked(record.lastError)
        facts.notBefore = record.notBefore
        facts.hostNotBefore = hostNotBefore
        facts.ttlMinutes = record.metadata?.ttlMinutes
        facts.updateInterval = record.metadata?.updateInterval
        facts.skipHours = record.metadata?.skipHours ?? []
        facts.skipDays = record.metadata?.skipDays ?? []
        facts.entries = entriesStored
        let retention = Int64(keepDays) * 86_400
        facts.collectedSince = Timestamp(
            secondsSince1970: max(record.firstSeen.secondsSince1970, now.secondsSince1970 - retention))
        return facts
    }

    /// When a feed the state knows is next due as of `now`, from its record
    /// and the entries it keeps; nil: never.
    public func nextCheck(
        record: FeedRecord, entriesStored: Int, keepDays: Int, now: Timestamp, hostNotBefore: Timestamp? = nil
    ) -> Timestamp? {
        check(record: record, entriesStored: entriesStored, keepDays: keepDays, now: now, hostNotBefore: hostNotBefore)
            .time
    }

    /// `nextCheck(record:…)` with its reason.
    public func check(
        record: FeedRecord, entriesStored: Int, keepDays: Int, now: Timestamp, hostNotBefore: Timestamp? = nil
    ) -> Check {
        check(
            Self.facts(
                record: record, entriesStored: entriesStored, keepDays: keepDays, now: now,
                hostNotBefore: hostNotBefore),
            now: now)
    }

    /// Whether the feed is due at `now`.
    public func isDue(_ facts: Facts, now: Timestamp) -> Bool {
        guard let next = nextCheck(facts, now: now) else { return false }
        return next <= now
    }

    /// A working feed's interval and what set it: from its posting rate,
    /// within the bounds, never under what it declares.
    private func working(_ facts: Facts, at last: Int64) -> (Int64, Reason) {
        // A quarter of the mean time between posts over the time they were collected (no post
        // in all that time: the time itself); a feed only just seen has no history yet.
        var interval = withoutHistory
        var reason = Reason.floor
        if let since = facts.collectedSince {
            let span = last - since.secondsSince1970
            if span >= day {
                interval = span / Int64(max(facts.entries, 1)) / 4
                reason = .postingRate
            }
        }
        if interval <= shortest { reason = .floor }
        interval = min(max(interval, shortest), longest)
        let declared = min(max(Int64(facts.ttlMinutes ?? 0) * 60, Int64(facts.updateInterval ?? 0)), longestBackoff)
        if declared > interval { return (declared, .ttl) }
        return (interval, reason)
    }

    /// A number in [0, 1) fixed by the feed's address and its last fetch.
    static func unit(_ url: String, _ last: Timestamp) -> Double {
        let hash = FNV1a.hash(url + "\n" + String(last.secondsSince1970))
        return Double(hash % 1_000_000) / 1_000_000
    }

    /// Hosts that asked everyone to wait: two or more of a host's feeds last
    /// answered 429 and still wait; the whole host then waits until the
    /// first of them is due again (its other feeds are not asked meanwhile).
    /// Keyed by `URLAuthority.host(of:)` of where each feed is fetched.
    public func hostWaits(_ records: some Sequence<FeedRecord>, now: Timestamp) -> [String: Timestamp] {
        var waits: [String: [Timestamp]] = [:]
        for record in records where record.lastStatus == 429 && record.consecutiveFailures > 0 {
            let facts = Self.facts(record: record, entriesStored: 0, keepDays: 0, now: now)
            guard let due = check(facts).time, due > now else { continue }
            waits[URLAuthority.host(of: record.movedTo ?? record.url), default: []].append(due)
        }
        return waits.compactMapValues { $0.count >= 2 ? $0.min() : nil }
    }

    /// The prefix of a failure's reason when the answer was a bot-protection challenge.
    public static let blockedPrefix = "blocked by bot protection"

    /// Whether a stored failure reason is a bot-protection block.
    public static func isBlocked(_ lastError: String?) -> Bool {
        lastError?.hasPrefix(blockedPrefix) ?? false
    }
}
