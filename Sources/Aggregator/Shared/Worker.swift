import Basics
import FeedFetch
import FeedModel
import FeedState
import Foundation
import Subscriptions
import TimelineMerge

/// A long-running process over a shared state: it claims hosts with due
/// feeds, fetches and stores those feeds as a run does (the same `Aggregator.run`,
/// every outcome fenced by its lease), writes their next checks and lets
/// the hosts go; then claims again. Nothing is merged or written but the state:
/// `feedmerge render` makes the outputs.
///
/// It outlives its database: a state that cannot be used (a claim fails) is
/// tried again with a backoff for as long as the worker runs, said when lost
/// and when back. A host whose lease it no longer holds (its keeper found it
/// lost, or its renewals stopped past the lease) is asked no more at once
/// (`HTTPClient.allow`/`withdraw`), so the per-host limit holds across a stall.
public struct Worker {
    public struct Settings: Sendable {
        /// Who claims (`--name`): as `--health` shows it.
        public var name: String
        public var leaseSeconds = 120
        /// Hosts per claim; 0: as many as its transfers can keep busy (`--jobs` / `--per-host`).
        public var hostsPerClaim = 0
        /// Exit once no feed is due, rather than wait for more to fall due
        /// (while due feeds are held by others, it waits: a holder that dies
        /// leaves them to it when their lease runs out).
        public var drain = false
        /// How long to wait before claiming again while others hold every due feed.
        public var heldWaitSeconds = 1.0
        /// The longest wait between claims when nothing is due.
        public var idleSeconds = 30.0
        /// The waits between tries of a state that cannot be used: the first,
        /// doubling up to the longest, each ±20%.
        public var retryFirstSeconds = 0.5
        public var retryLongestSeconds = 15.0
        /// How long a draining worker tries a state that cannot be used
        /// before it stops (a one-shot run's patience with a lost connection).
        public var drainPatienceSeconds = 10.0

        public init(name: String) { self.name = name }
    }

    /// What a worker did, for its summary line and its exit status.
    public struct Totals: Sendable {
        public var claims = 0
        public var hosts = 0
        /// Outcomes stored, by kind.
        public var fetched = 0
        public var notModified = 0
        public var failed = 0
        /// Claimed feeds whose outcome is not in the state: storing it failed,
        /// its fence dropped it, or its fetch was stopped with its host's lease.
        public var notStored = 0
        /// Host leases lost while held (another process holds the host now).
        public var leasesLost = 0
        /// It stopped while the state could not be used (or with its last
        /// claim's outcomes not stored, or its hosts not let go): due work is
        /// left that it could not do.
        public var stoppedWithStateFailing = false
        /// The timeline rules could not be made (the options' fault): it stopped.
        public var rulesFailed = false
    }

    public let settings: Settings
    public let state: StateOptions
    public let store: any SharedStateStore
    public let client: HTTPClient
    /// Renews the leases of the claim being fetched; its news reaches `client` at once.
    public let keeper: any LeaseKeeper
    /// The subscriptions it was given, and where each URL's is among them:
    /// a claimed feed of another process's list is fetched as a plain web feed.
    let list: SubscriptionList
    let index: [String: Int]
    /// The leases of the claim being fetched, by host (the keeper's news of any other is stale).
    let held: Locked<[String: HostLease]>
    /// Says a line on standard error at once (an error, a loss, a recovery), with its time.
    let say: @Sendable (String) -> Void

    /// - Parameter say: writes one line (the worker's name before it is the caller's).
    public init(
        settings: Settings, list: SubscriptionList, store: any SharedStateStore, state: StateOptions,
        client: HTTPClient, say: @escaping @Sendable (String) -> Void
    ) {
        self.settings = settings
        self.list = list
        self.store = store
        self.state = state
        self.client = client
        var index: [String: Int] = [:]
        index.reserveCapacity(list.subscriptions.count)
        for (position, subscription) in list.subscriptions.enumerated() where index[subscription.url] == nil {
            index[subscription.url] = position
        }
        self.index = index
        let stamped: @Sendable (String) -> Void = { line in say("\(Self.wallClock()): \(line)") }
        self.say = stamped
        let held = Locked<[String: HostLease]>([:])
        self.held = held
        let lease = Self.localLease(settings.leaseSeconds)
        keeper = store.makeLeaseKeeper(leaseSeconds: settings.leaseSeconds) { change in
            func current(_ leases: [HostLease]) -> [String] {
                held.withLock { held in leases.filter { held[$0.host] == $0 }.map(\.host) }
            }
            switch change {
            case .renewed(let leases, let since):
                client.allow(current(leases), until: since + lease)
            case .lost(let leases):
                let hosts = current(leases)
                guard !hosts.isEmpty else { return }
                client.withdraw(hosts)
                stamped(
                    hosts.count == 1
                        ? "lost the lease on \(hosts[0]) (another process holds it now): its transfers are stopped"
                        : "lost the leases on \(hosts.joined(separator: ", ")) (another process holds them now): "
                            + "their transfers are stopped")
            case .renewalFailed(let error):
                stamped(
                    "state: cannot renew the leases (\(error)); a host whose lease is not renewed within "
                        + "\(settings.leaseSeconds) s is asked no more")
            }
        }
    }

    /// How long this process takes a lease to hold from when its claim or
    /// renewal was sent: the lease's length less a tenth (at least 0.1 s), so
    /// that its own clock running a little fast never makes it ask a host
    /// the server has let go.
    static func localLease(_ seconds: Int) -> Duration {
        .milliseconds(seconds * 1000 - max(100, seconds * 100))
    }

    /// Now by the wall clock, RFC 3339 in UTC (for the lines said as they happen).
    static func wallClock() -> String {
        Timestamp(secondsSince1970: Int64(Date().timeIntervalSince1970)).rfc3339
    }

    /// Claims and fetches until `stopping` says so (a signal) or, with
    /// `drain`, until nothing it may claim is due (or the state cannot be
    /// used for `drainPatienceSeconds`).
    /// - Parameters:
    ///   - rules: the run's rules for each claim, with its time (`--now` fixes it).
    ///   - log: a line for each claim batch (`-v`).
    public func run(
        rules: @escaping @Sendable () throws -> TimelineRules, stopping: @escaping @Sendable () -> Bool,
        log: @escaping @Sendable (String) -> Void
    ) async -> Totals {
        var totals = Totals()
        let thread = StateThread(inline: false)
        defer { thread.stop() }
        defer { keeper.stop() }
        var lastSubscribed: Timestamp?
        var unreleased: Release?
        var outage: Outage?
        var lastClaimFailedState = false
        var said: Set<String> = []
        let perHost = max(client.configuration.maximumTransfersPerHost, 1)
        let hosts =
            settings.hostsPerClaim > 0
            ? settings.hostsPerClaim : max(1, (client.configuration.maximumConcurrentTransfers + perHost - 1) / perHost)
        while !stopping() {
            let runRules: TimelineRules
            do {
                runRules = try rules()
            } catch {
                say("the timeline rules cannot be made (\(error)); stopping")
                totals.rulesFailed = true
                break
            }
            let now = runRules.now
            var claims: [HostClaim] = []
            var due = 0
            var failure: StateError?
            var refused: [String: StateError] = [:]
            var lostAtRelease: [HostLease] = []
            let claimedAt = ContinuousClock.now
            await thread.run {
                // The hosts of a claim that could not be let go before: let go first (else they stay
                // held, by this worker, until their leases run out), until they have run out.
                if let release = unreleased {
                    do throws(StateError) {
                        lostAtRelease = try release.perform(store: store, state: state)
                        unreleased = nil
                    } catch {
                        if release.hasRunOut { unreleased = nil }
                    }
                }
                do throws(StateError) {
                    // The list is noted as listed again every hour (see `SharedStateStore.subscribe`).
                    if lastSubscribed.map({ now.secondsSince1970 - $0.secondsSince1970 >= 3_600 }) ?? true {
                        refused = try store.subscribe(list.subscriptions.map(\.url), now: now)
                        lastSubscribed = now
                    }
                    claims = try store.claim(
                        ClaimRequest(
                            scope: .due, hosts: hosts, holder: settings.name, leaseSeconds: settings.leaseSeconds,
                            now: now))
                    if claims.isEmpty { due = try store.dueCount(now: now) }
                } catch {
                    failure = error
                }
            }
            totals.leasesLost += lostAtRelease.count
            for (url, error) in refused.sorted(by: { $0.key < $1.key }) {
                let line = "\(url): state: cannot be stored, not fetched (\(error))"
                if said.insert(line).inserted { say(line) }
            }
            if let failure {
                if outage == nil {
                    outage = Outage()
                    let retrying = settings.drain ? "for \(Int(settings.drainPatienceSeconds)) s" : "until it is back"
                    say("state lost: cannot claim feeds (\(failure)); trying again \(retrying)")
                }
                var wait = outage!.nextWait(settings)
                if settings.drain {
                    let left = settings.drainPatienceSeconds - outage!.seconds
                    guard left > 0 else { break }
                    wait = min(wait, left)
                }
                await Self.pause(wait, stopping: stopping)
                continue
            }
            if let lost = outage {
                say("state back after \(Int(lost.seconds.rounded())) s")
                outage = nil
            }
            guard !claims.isEmpty else {
                if settings.drain && due == 0 { break }
                // Due feeds held by others: look again soon (a holder may die); else wait for more to fall due.
                await Self.pause(due > 0 ? settings.heldWaitSeconds : settings.idleSeconds, stopping: stopping)
                continue
            }
            let batch = await fetch(claims, claimedAt: claimedAt, rules: runRules, thread: thread)
            unreleased = batch.unreleased
            lastClaimFailedState = batch.stateFailed
            totals.claims += 1
            totals.hosts += claims.count
            totals.fetched += batch.fetched
            totals.notModified += batch.notModified
            totals.failed += batch.failed
            totals.notStored += batch.notStored
            totals.leasesLost += batch.leasesLost
            log(
                "claimed \(claims.count) hosts, \(batch.feeds) feeds: \(batch.fetched) fetched, "
                    + "\(batch.notModified) not modified, \(batch.failed) failed, \(batch.notStored) not stored, "
                    + "\(batch.leasesLost) leases lost")
        }
        if let outage {
            say("stopping with the state lost for \(Int(outage.seconds.rounded())) s: feeds may be left due")
        }
        totals.stoppedWithStateFailing = outage != nil || unreleased != nil || lastClaimFailedState
        return totals
    }

    /// Waits up to `seconds`, waking within a tenth of a second of `stopping`.
    static func pause(_ seconds: Double, stopping: @Sendable () -> Bool) async {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while !stopping(), ContinuousClock.now < deadline {
            do {
                try await Task.sleep(for: .milliseconds(100))
            } catch {
                return  // cancelled: the caller stops
            }
        }
    }
}

/// Since when the state cannot be used, and how often it was tried since.
struct Outage {
    let started = ContinuousClock.now
    private var tries = 0

    var seconds: Double {
        let (seconds, attoseconds) = (ContinuousClock.now - started).components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The wait before the next try: doubling from the first, at most the longest, ±20%.
    mutating func nextWait(_ settings: Worker.Settings) -> Double {
        let doubled = settings.retryFirstSeconds * pow(2, Double(min(tries, 30)))
        tries += 1
        return min(settings.retryLongestSeconds, doubled * Double.random(in: 0.8...1.2))
    }
}

/// A claim's hosts to let go, with their feeds' schedule (written when it succeeds).
struct Release {
    let leases: [HostLease]
    let feeds: [String]
    let now: Timestamp
    /// When the leases have run out on the server, renewed no more since this was made: then
    /// there is nothing left to let go, and the feeds not scheduled are due for whoever claims.
    let runsOut: ContinuousClock.Instant

    init(leases: [HostLease], feeds: [String], now: Timestamp, leaseSeconds: Int) {
        self.leases = leases
        self.feeds = feeds
        self.now = now
        runsOut = .now + .seconds(leaseSeconds)
    }

    var hasRunOut: Bool { ContinuousClock.now >= runsOut }

    /// - Returns: the leases found lost.
    func perform(store: any SharedStateStore, state: StateOptions) throws(StateError) -> [HostLease] {
        try SharedSchedule.release(leases, feeds: feeds, store: store, state: state, now: now)
    }
}
