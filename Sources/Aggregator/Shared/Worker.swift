import Basics
import FeedFetch
import FeedModel
import FeedState
import Foundation
import Subscriptions
import Telemetry
import TimelineMerge
import WebSub

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
        /// A claimed host's due feeds fetched in one claim, at most; 0: 64 for each transfer a
        /// host may have at once (a claim's feeds, and what the worker holds for them, are
        /// bounded however many feeds a host serves; the rest wait for the host's next claim).
        public var feedsPerHost = 0
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
    /// Its store is shared (`StateSession.isShared`).
    public let state: StateOptions
    public let client: HTTPClient
    /// The hosts of the claim being fetched, from claim to release (`HostHolding`).
    let holding: HostHolding
    /// Renews the leases of the claim being fetched; its news reaches `client` at once.
    public var keeper: any LeaseKeeper { holding.keeper }
    /// The subscriptions it was given, packed (a worker may be given a million):
    /// a claimed feed of another process's list is fetched as a plain web feed.
    let list: PackedSubscriptions
    /// Tells the operator at once (an error, a loss, a recovery, a failing feed, each claim).
    let log: @Sendable (LogEvent) -> Void
    /// What it counts for `/metrics`.
    let metrics: MetricRegistry
    /// Since when the state cannot be used, and why (nil while it can): what `/healthz` reads.
    public let stateLost = Locked<StateLoss?>(nil)
    /// Its WebSub subscriptions (nil: it polls every feed), and the client that asks their hubs.
    let subscriber: WebSubSubscriber?
    let hubClient: HTTPClient?
    /// The same, refusing private and loopback addresses: for the hubs public feeds name.
    let publicHubClient: HTTPClient?

    public struct StateLoss: Sendable {
        public let since: ContinuousClock.Instant
        public let reason: String
    }

    /// - Parameter log: writes one event (the caller's log decides its form and what `-v` adds).
    /// - Parameter subscriber: subscribes to the feeds that advertise a WebSub hub, and stores
    ///   what their hubs push (with a callback listening for it).
    public init(
        settings: Settings, list: PackedSubscriptions, state: StateOptions,
        client: HTTPClient, metrics: MetricRegistry, subscriber: WebSubSubscriber? = nil,
        log: @escaping @Sendable (LogEvent) -> Void
    ) async {
        self.settings = settings
        self.subscriber = subscriber
        hubClient = subscriber.map { _ in HTTPClient(configuration: client.configuration) }
        var publicOnly = client.configuration
        publicOnly.addressPolicy = .publicOnly
        publicHubClient = subscriber.map { _ in HTTPClient(configuration: publicOnly) }
        self.list = list
        self.state = state
        self.client = client
        self.log = log
        self.metrics = metrics
        holding = await HostHolding(
            session: state.session, client: client, holder: settings.name, leaseSeconds: settings.leaseSeconds
        ) { news in
            switch news {
            case .renewed(let hosts):
                metrics.add(.leaseRenewals, Double(hosts))
            case .lost(let event):
                log(event)
            case .renewalFailed(let error):
                metrics.add(.stateErrors)
                log(
                    LogEvent(
                        .error, "state_error",
                        "state: cannot renew the leases (\(error)); a host whose lease is not renewed within "
                            + "\(settings.leaseSeconds) s is asked no more", [("reason", .text("\(error)"))]))
            }
        }
    }

    /// `30`, `1.5`: a wait as the idle line says it.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// Claims and fetches until `stopping` says so (a signal) or, with
    /// `drain`, until nothing it may claim is due (or the state cannot be
    /// used for `drainPatienceSeconds`).
    /// - Parameter rules: the run's rules for each claim, with its time (`--now` fixes it).
    public func run(
        rules: @escaping @Sendable () throws -> TimelineRules, stopping: @escaping @Sendable () -> Bool
    ) async -> Totals {
        var totals = Totals()
        defer { keeper.stop() }
        var carried = Carried()
        while !stopping() {
            let runRules: TimelineRules
            do {
                runRules = try rules()
            } catch {
                log(LogEvent(.error, "rules_failed", "the timeline rules cannot be made (\(error)); stopping"))
                totals.rulesFailed = true
                break
            }
            if subscriber != nil { await websubTurn(rules: runRules, carried: &carried) }
            let attempt = await claim(at: runRules.now, carried: &carried)
            totals.leasesLost += attempt.lostAtRelease.count
            if let failure = attempt.failure {
                guard await waitAfter(failure, carried: &carried, stopping: stopping) else { break }
                continue
            }
            if let outage = carried.outage {
                let seconds = Int(outage.seconds.rounded())
                log(LogEvent(.info, "state_back", "state back after \(seconds) s", [("seconds", .integer(seconds))]))
                carried.outage = nil
                stateLost.withLock { $0 = nil }
            }
            guard !attempt.claims.isEmpty else {
                if settings.drain && attempt.due == 0 { break }
                if !carried.idle {
                    carried.idle = true
                    log(
                        LogEvent(
                            .info, "idle",
                            attempt.due > 0
                                ? "\(attempt.due) feeds due, all on hosts other workers hold: looking again every "
                                    + "\(Self.seconds(settings.heldWaitSeconds)) s"
                                : "nothing due: looking again every \(Self.seconds(settings.idleSeconds)) s",
                            [("due", .integer(attempt.due))]))
                }
                // Due feeds held by others: look again soon (a holder may die); else wait for more to fall due.
                // A hub's delivery wakes it at once.
                await Self.pause(attempt.due > 0 ? settings.heldWaitSeconds : settings.idleSeconds) {
                    [subscriber] in stopping() || subscriber?.hasWork == true
                }
                continue
            }
            carried.idle = false
            let batch = await fetch(attempt.claims, claimedAt: attempt.claimedAt, rules: runRules)
            carried.unreleased = batch.unreleased
            carried.lastClaimFailedState = batch.stateFailed
            totals.add(batch, hosts: attempt.claims.count)
            log(
                LogEvent(
                    .info, "claim",
                    "claimed \(attempt.claims.count) hosts, \(batch.feeds) feeds: \(batch.fetched) fetched, "
                        + "\(batch.notModified) not modified, \(batch.failed) failed, \(batch.notStored) not stored, "
                        + "\(batch.leasesLost) leases lost",
                    [
                        ("hosts", .integer(attempt.claims.count)), ("feeds", .integer(batch.feeds)),
                        ("fetched", .integer(batch.fetched)), ("not_modified", .integer(batch.notModified)),
                        ("failed", .integer(batch.failed)), ("not_stored", .integer(batch.notStored)),
                        ("leases_lost", .integer(batch.leasesLost)),
                    ]))
        }
        if let outage = carried.outage {
            let seconds = Int(outage.seconds.rounded())
            log(
                LogEvent(
                    .error, "stopping_state_lost",
                    "stopping with the state lost for \(seconds) s: feeds may be left due",
                    [("seconds", .integer(seconds))]
                ))
        }
        totals.stoppedWithStateFailing =
            carried.outage != nil || carried.unreleased != nil || carried.lastClaimFailedState
        return totals
    }

    /// What the loop carries from one claim to the next.
    struct Carried: Sendable {
        var lastSubscribed: Timestamp?
        /// With WebSub: every feed some run listed, as of `lastSubscribed`.
        var listed: Set<String> = []
        /// A claim's hosts that could not be let go: let go before the next claim.
        var unreleased: Release?
        /// Since when the state cannot be used (nil: it can).
        var outage: Outage?
        var lastClaimFailedState = false
        /// The URLs the state refused, said once each.
        var said: Set<String> = []
        /// Nothing was claimed last time (said once when it begins).
        var idle = false
        /// When the backlog was last counted, and how often it is (`Worker.dueCountInterval`).
        var dueCounted: ContinuousClock.Instant?
        var dueCountEvery = Worker.dueCountInterval
    }

    /// The backlog (`feedmerge_due_feeds`) is counted at most this often, and at most once in
    /// 200 times the last count took: a count passes over every due feed, which at a million
    /// feeds takes a second of the database's time.
    static let dueCountInterval = Duration.seconds(15)

    /// What one claim's work with the store gave back.
    struct ClaimTurn: Sendable {
        var attempt = Attempt()
        var refused: [String: StateError] = [:]
        var lastSubscribed: Timestamp?
        var listed: Set<String>
        var claimTook: Duration?
        /// How long counting the backlog took (nil: not counted in full).
        var countTook: Duration?
    }

    struct Attempt: Sendable {
        var claims: [HostClaim] = []
        /// When the claim was sent: its leases hold from then (not from the turn's start,
        /// whose subscription of a long list, or a release tried again, may take a while).
        var claimedAt = ContinuousClock.now
        /// With no claim: the feeds due, whoever holds them (counted when it is the first
        /// claim with none, else 1 when any is).
        var due = 0
        var failure: StateError?
        /// Leases of the claim let go now found lost.
        var lostAtRelease: [HostLease] = []
    }

    /// Lets go the hosts a claim could not let go before (else they stay held, by this worker,
    /// until their leases run out), notes the list as listed every hour, and claims.
    private func claim(at now: Timestamp, carried: inout Carried) async -> Attempt {
        // The default limit: the hosts with one of their own (`--per-host HOST=N`) are a few the
        // operator runs, and a claim sized for them would hold the other hosts' feeds back.
        let perHost = max(client.configuration.maximumTransfersPerHost, 1)
        let hosts =
            settings.hostsPerClaim > 0
            ? settings.hostsPerClaim : max(1, (client.configuration.maximumConcurrentTransfers + perHost - 1) / perHost)
        let feedsPerHost = settings.feedsPerHost > 0 ? settings.feedsPerHost : 64 * perHost
        let backlogDue = carried.dueCounted.map { ContinuousClock.now - $0 >= carried.dueCountEvery } ?? true
        var lostAtRelease: [HostLease] = []
        if let release = carried.unreleased, let lost = await holding.retry(release, state: state) {
            lostAtRelease = lost
            carried.unreleased = nil
        }
        let turn = await state.session.withSharedStore {
            [carried, settings, list, watching = subscriber != nil] store in
            var turn = ClaimTurn(lastSubscribed: carried.lastSubscribed, listed: carried.listed)
            do throws(StateError) {
                // The list is noted as listed again every hour (see `SharedStateStore.subscribe`).
                if turn.lastSubscribed.map({ now.secondsSince1970 - $0.secondsSince1970 >= 3_600 }) ?? true {
                    turn.refused = try Self.subscribe(list, to: store, now: now)
                    if watching { turn.listed = Set(try store.listedFeeds(now: now)) }
                    turn.lastSubscribed = now
                }
                let sent = ContinuousClock.now
                turn.attempt.claimedAt = sent
                var request = ClaimRequest(
                    scope: .due, hosts: hosts, holder: settings.name, leaseSeconds: settings.leaseSeconds, now: now)
                request.feedsPerHost = feedsPerHost
                turn.attempt.claims = try store.claim(request)
                turn.claimTook = ContinuousClock.now - sent
                // The backlog counted when due, and when nothing is claimed for the first time (the
                // idle line says it); else, with nothing claimed, whether any feed is due.
                if backlogDue || (turn.attempt.claims.isEmpty && !carried.idle) {
                    let started = ContinuousClock.now
                    turn.attempt.due = try store.dueCount(now: now, atMost: nil)
                    turn.countTook = ContinuousClock.now - started
                } else if turn.attempt.claims.isEmpty {
                    turn.attempt.due = try store.dueCount(now: now, atMost: 1)
                }
            } catch {
                turn.attempt.failure = error
            }
            return turn
        }
        var attempt = turn.attempt
        attempt.lostAtRelease = lostAtRelease
        let refused = turn.refused
        let lastSubscribed = turn.lastSubscribed
        let listed = turn.listed
        let claimTook = turn.claimTook
        let countTook = turn.countTook
        if let subscriber, carried.lastSubscribed != lastSubscribed {
            subscriber.setListed(listed.union(list.urls))
        }
        carried.lastSubscribed = lastSubscribed
        carried.listed = listed
        if let claimTook {
            let (seconds, attoseconds) = claimTook.components
            metrics.add(.claims)
            metrics.observe(.claimDuration, Double(seconds) + Double(attoseconds) / 1e18)
            metrics.set(.lastSuccessfulClaim, Date().timeIntervalSince1970)
        }
        if attempt.failure == nil {
            metrics.set(.stateUp, 1)
            if let countTook {
                metrics.set(.dueFeeds, Double(attempt.due))
                carried.dueCounted = .now
                carried.dueCountEvery = max(Self.dueCountInterval, countTook * 200)
            }
        } else {
            metrics.add(.stateErrors)
            metrics.set(.stateUp, 0)
        }
        for (url, error) in refused.sorted(by: { $0.key < $1.key }) {
            let line = "\(url): state: cannot be stored, not fetched (\(error))"
            if carried.said.insert(line).inserted {
                log(LogEvent(.warning, "refused", line, [("url", .text(url)), ("reason", .text("\(error)"))]))
            }
        }
        return attempt
    }

    /// The list subscribed a part at a time: its URLs are never all unpacked at once.
    private static func subscribe(_ list: PackedSubscriptions, to store: any SharedStateStore, now: Timestamp)
        throws(StateError) -> [String: StateError]
    {
        var refused: [String: StateError] = [:]
        for start in stride(from: 0, to: list.count, by: subscribePart) {
            let part = list.urls(in: start..<min(start + subscribePart, list.count))
            try refused.merge(store.subscribe(part, now: now)) { first, _ in first }
        }
        return refused
    }

    static let subscribePart = 10_000
}
