import FeedModel

/// A host's lease: while a process holds it, that process alone fetches the
/// host's feeds and writes their outcomes. The token is new at every claim
/// (a fencing token): an outcome is written only while the token it was
/// claimed under is still the host's, so a process that lost its lease (it
/// stalled past the lease, and another claimed the host) cannot overwrite
/// what the new holder writes.
public struct HostLease: Sendable, Hashable {
    public var host: String
    public var token: Int64

    public init(host: String, token: Int64) {
        self.host = host
        self.token = token
    }
}

/// What a claim asks for.
public struct ClaimRequest: Sendable {
    public enum Scope: Sendable, Equatable {
        /// Hosts with a feed due (`next_check` no later than the run's time): a worker's.
        case due
        /// The hosts of these feeds (those no one holds), each with those of
        /// these feeds it serves, due or not: a one-shot run's, which fetches
        /// every feed it lists (or, `--due-only`, decides itself which are due).
        case feeds([String])
    }

    public var scope: Scope
    /// At most this many hosts.
    public var hosts: Int
    /// With `.due`: at most this many of a host's due feeds, the longest due
    /// first (nil: all of them). A claim's size in feeds is then bounded
    /// whatever its hosts hold (the rest are left due: the next claim of the
    /// host takes them), and so is what the claimer holds while it runs.
    public var feedsPerHost: Int?
    /// Who claims (a worker's name: its host and pid by default), as `--health` shows it.
    public var holder: String
    /// How long a lease lasts unless renewed, in seconds (the server's clock).
    public var leaseSeconds: Int
    /// The run's time, for what is due.
    public var now: Timestamp
    /// A feed is fetched while some run listed it within this many seconds.
    public static let listedWithin: Int64 = 2 * 86_400

    public init(scope: Scope, hosts: Int, holder: String, leaseSeconds: Int, now: Timestamp) {
        self.scope = scope
        self.hosts = hosts
        self.holder = holder
        self.leaseSeconds = leaseSeconds
        self.now = now
    }
}

/// A host claimed, and its feeds that are due (a one-shot run's claim: every subscribed feed).
public struct HostClaim: Sendable {
    public var lease: HostLease
    public var feeds: [String]

    public init(lease: HostLease, feeds: [String]) {
        self.lease = lease
        self.feeds = feeds
    }

    /// The lease each claimed feed is written under (`StateOptions.leases`, `StoreRun`).
    public static func leasesByFeed(_ claims: [HostClaim]) -> [String: HostLease] {
        var leases: [String: HostLease] = [:]
        for claim in claims {
            for url in claim.feeds { leases[url] = claim.lease }
        }
        return leases
    }
}

/// A feed's place in the shared schedule, written when its host is released.
public struct ScheduledFeed: Sendable {
    public var url: String
    /// nil: never due again (gone).
    public var nextCheck: Timestamp?
    /// The lease of the host it is on: written only while that holds.
    public var lease: HostLease

    public init(url: String, nextCheck: Timestamp?, lease: HostLease) {
        self.url = url
        self.nextCheck = nextCheck
        self.lease = lease
    }
}

/// A state that several processes, on one machine or many, share: each feed
/// is fetched by the one process holding its host's lease (so the per-host
/// limit holds across all of them, and a feed's Retry-After, kept in its
/// schedule, whichever process asks next), and its outcome
/// is written only while that lease holds. The store decides nothing: which
/// feeds are due is the schedule the caller writes back (`release`).
public protocol SharedStateStore: StateStore {
    /// Makes the feeds known (a new feed is due at once) and notes that a
    /// run lists them now. The feeds a shared state fetches are those some
    /// run listed within `ClaimRequest.listedWithin`: the union of every
    /// run's list, and a feed no list names any more stops being fetched
    /// after that time (its entries stay, under the retention rules).
    /// - Returns: the feeds the state refused to store, each with why (the
    ///   others are subscribed: one bad URL never costs the list).
    /// - Throws: only when the state cannot be reached.
    @discardableResult
    func subscribe(_ urls: [String], now: Timestamp) throws(StateError) -> [String: StateError]
    /// Claims hosts no one holds (or whose lease ran out), each with a new
    /// token, and gives each with its due feeds. A claimed feed's outcome is
    /// then recorded fenced by its lease (`record(_:fencedBy:)`): which feeds
    /// a run writes is its session's (`StoreRun`), never a mode of the store.
    func claim(_ request: ClaimRequest) throws(StateError) -> [HostClaim]
    /// Records an outcome (as `record(_:)`), written only while `lease`
    /// holds: one the lease no longer covers is dropped, counted in
    /// `takeDroppedOutcomes`, and its lease keeper told it is lost.
    func record(_ update: FeedUpdate, fencedBy lease: HostLease) throws(StateError)
    /// `record(all:)`, each outcome fenced by its feed's lease in `leases`.
    func record(all updates: [FeedUpdate], fencedBy leases: [String: HostLease]) throws(StateError)
    /// `prune` of these feeds only, each written while its lease in
    /// `leases` holds; never a pass over every feed (another process may be
    /// writing any other).
    func prune(
        feeds: [String], keepDays: Int, keepPerFeed: Int, now: Timestamp, fencedBy leases: [String: HostLease]
    ) throws(StateError)
    /// How many listed feeds are due at `now`, whoever holds their hosts: a draining worker waits
    /// while any is, since a holder that died leaves them to it.
    /// - Parameter atMost: counts no further (1: whether any is due); nil: counts them all,
    ///   which costs a pass over the feeds.
    func dueCount(now: Timestamp, atMost: Int?) throws(StateError) -> Int
    /// The feeds some run or worker listed within `ClaimRequest.listedWithin`
    /// of `now`, in byte order of their URLs: those the shared state fetches,
    /// and those `feedmerge render` shows when given no SOURCE, a page at a time.
    /// - Parameters:
    ///   - after: the URLs after this one only (nil: from the first).
    ///   - limit: at most this many (nil: all).
    func listedFeeds(now: Timestamp, after: String?, limit: Int?) throws(StateError) -> [String]
    /// A keeper that renews the process's leases from a thread of its own
    /// (with its own connection) while its runs fetch, and tells `onChange`
    /// what it learns of them, on the thread that learns it: the keeper's
    /// (a renewal), or the store's caller's (a write its fence refused).
    func makeLeaseKeeper(leaseSeconds: Int, onChange: @escaping @Sendable (LeaseChange) -> Void) -> any LeaseKeeper
    /// Stores every outcome recorded so far, writes the feeds' next checks
    /// and who fetched them (`holder`, as `--health` names it; each feed
    /// while its `ScheduledFeed.lease` holds), and lets the hosts go.
    /// - Returns: the leases found lost (their feeds' schedule was not written).
    func release(_ leases: [HostLease], schedule: [ScheduledFeed], fetchedBy holder: String) throws(StateError)
        -> [HostLease]
    /// The feeds whose outcome was dropped because their lease was lost, since the last call.
    func takeDroppedOutcomes() -> [String]
}

extension SharedStateStore {
    /// A keeper whose news nobody waits for: what it found lost is read with `takeLost`.
    public func makeLeaseKeeper(leaseSeconds: Int) -> any LeaseKeeper {
        makeLeaseKeeper(leaseSeconds: leaseSeconds) { _ in }
    }
}

/// What a lease keeper learned of its leases.
public enum LeaseChange: Sendable {
    /// Renewed: each holds for the lease's length at least from `since`
    /// (when the renewal was sent, by this process's monotonic clock).
    case renewed([HostLease], since: ContinuousClock.Instant)
    /// Lost: another process holds the host now (found by a renewal, or by
    /// a write its fence refused). The process must stop asking the host.
    case lost([HostLease])
    /// A renewal failed (said once until one succeeds again): each lease
    /// runs out `leaseSeconds` after it was last renewed.
    case renewalFailed(StateError)
}

/// Renews a process's leases from a thread of its own while its run fetches.
public protocol LeaseKeeper: AnyObject, Sendable {
    /// Keeps these leases alive (replacing the set kept before).
    func keep(_ leases: [HostLease])
    /// The leases found lost since the last call.
    func takeLost() -> [HostLease]
    /// Stops renewing (before release).
    func stop()
    /// Stops renewing and lets the leases go at once, on a connection of
    /// its own, their feeds' schedules as they were: for a process ended by
    /// a signal, whose hosts are then free at once rather than when their
    /// leases run out.
    /// - Throws: when they cannot be let go (they then run out).
    func abandon() throws(StateError)
}

extension SharedStateStore {
    /// Every listed feed at once (`listedFeeds(now:after:limit:)`).
    public func listedFeeds(now: Timestamp) throws(StateError) -> [String] {
        try listedFeeds(now: now, after: nil, limit: nil)
    }
}
