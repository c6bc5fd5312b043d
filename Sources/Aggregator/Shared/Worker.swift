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

        public init(name: String) { self.name = name }
    }

    /// What a worker did, for its summary line.
    public struct Totals: Sendable {
        public var claims = 0
        public var hosts = 0
        public var fetched = 0
        public var notModified = 0
        public var failed = 0
        /// Outcomes dropped because their lease was lost, and leases found lost at release.
        public var leasesLost = 0
        public var entries = 0
        /// State failures, said once each.
        public var diagnostics: [String] = []
    }

    public let settings: Settings
    public let state: StateOptions
    public let store: any SharedStateStore
    public let client: HTTPClient
    /// The subscriptions it was given, and where each URL's is among them:
    /// a claimed feed of another process's list is fetched as a plain web feed.
    let list: SubscriptionList
    let index: [String: Int]

    public init(
        settings: Settings, list: SubscriptionList, store: any SharedStateStore, state: StateOptions, client: HTTPClient
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
    }

    /// Claims and fetches until `stopping` says so (a signal) or, with
    /// `drain`, until nothing it may claim is due.
    /// - Parameters:
    ///   - clock: the run's time for each claim (`--now` fixes it).
    ///   - log: a line for each claim batch (`-v`).
    ///   - keeper: renews the leases while a claim is fetched (`SharedStateStore.makeLeaseKeeper`).
    public func run(
        keeper: any LeaseKeeper, rules: @escaping @Sendable () -> TimelineRules,
        stopping: @escaping @Sendable () -> Bool, log: @escaping @Sendable (String) -> Void
    ) async -> Totals {
        var totals = Totals()
        let thread = StateThread(inline: false)
        defer { thread.stop() }
        defer { keeper.stop() }
        var lastSubscribed: Timestamp?
        let perHost = max(client.configuration.maximumTransfersPerHost, 1)
        let hosts =
            settings.hostsPerClaim > 0
            ? settings.hostsPerClaim : max(1, (client.configuration.maximumConcurrentTransfers + perHost - 1) / perHost)
        while !stopping() {
            let now = rules().now
            var claims: [HostClaim] = []
            var due = 0
            var failure: StateError?
            var refused: [String: StateError] = [:]
            await thread.run {
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
            for (url, error) in refused.sorted(by: { $0.key < $1.key }) {
                note("\(url): state: cannot be stored, not fetched (\(error))", &totals)
            }
            if let failure {
                note("state: cannot claim feeds (\(failure))", &totals)
                if settings.drain { break }
                try? await Task.sleep(for: .seconds(settings.idleSeconds))
                continue
            }
            guard !claims.isEmpty else {
                if settings.drain && due == 0 { break }
                // Due feeds held by others: look again soon (a holder may die); else wait for more to fall due.
                let deadline = Date(timeIntervalSinceNow: due > 0 ? settings.heldWaitSeconds : settings.idleSeconds)
                while Date() < deadline && !stopping() { try? await Task.sleep(for: .milliseconds(200)) }
                continue
            }
            keeper.keep(claims.map(\.lease))
            totals.claims += 1
            totals.hosts += claims.count
            let batch = await fetch(claims, rules: rules(), thread: thread, totals: &totals)
            keeper.keep([])
            log(
                "claimed \(claims.count) hosts, \(batch.feeds) feeds: \(batch.fetched) fetched, "
                    + "\(batch.notModified) not modified, \(batch.failed) failed, \(batch.lost) leases lost")
        }
        return totals
    }

    private struct Batch {
        var feeds = 0
        var fetched = 0
        var notModified = 0
        var failed = 0
        var lost = 0
    }

    /// One claim's feeds fetched and stored, then its hosts let go with their schedule.
    private func fetch(_ claims: [HostClaim], rules: TimelineRules, thread: StateThread, totals: inout Totals) async
        -> Batch
    {
        var batch = Batch()
        // One host's feeds after another would keep the run's window on one host at a time (its
        // per-host limit the only transfers in flight): the hosts' feeds are dealt in turn.
        var urls: [String] = []
        for round in 0..<(claims.map(\.feeds.count).max() ?? 0) {
            for claim in claims where round < claim.feeds.count { urls.append(claim.feeds[round]) }
        }
        batch.feeds = urls.count
        var sublist = SubscriptionList()
        sublist.subscriptions = urls.map { url in index[url].map { list.subscriptions[$0] } ?? Subscription(url: url) }
        var records: [String: FeedRecord] = [:]
        var failure: StateError?
        await thread.run {
            do throws(StateError) {
                records = try store.feeds(urls).mapValues(\.record)
            } catch {
                failure = error
            }
        }
        if let failure { note("state: cannot read the claimed feeds' records (\(failure))", &totals) }
        var runState = state
        runState.readsStoredDates = false
        runState.dueOnly = false
        runState.health = false
        var result = await Aggregator.run(
            sublist, client: client, rules: rules, state: runState, records: failure == nil ? records : nil)
        for report in result.reports {
            switch report.status {
            case .ok: batch.fetched += 1
            case .notModified: batch.notModified += 1
            case .failed, .gone: batch.failed += 1
            case .deferred: break
            }
        }
        for diagnostic in result.diagnostics { note(diagnostic, &totals) }
        totals.entries += result.takeEntries().count
        let keeper = store
        var lost: [HostLease] = []
        var dropped: [String] = []
        await thread.run {
            do throws(StateError) {
                lost = try SharedSchedule.release(
                    claims.map(\.lease), feeds: urls, store: keeper, state: state, now: rules.now)
            } catch {
                failure = error
            }
            dropped = keeper.takeDroppedOutcomes()
        }
        if let failure { note("state: cannot let the claimed hosts go (\(failure)); their leases run out", &totals) }
        batch.lost = dropped.count + lost.count
        totals.fetched += batch.fetched
        totals.notModified += batch.notModified
        totals.failed += batch.failed
        totals.leasesLost += batch.lost
        return batch
    }

    private func note(_ diagnostic: String, _ totals: inout Totals) {
        if !totals.diagnostics.contains(diagnostic) { totals.diagnostics.append(diagnostic) }
    }
}
