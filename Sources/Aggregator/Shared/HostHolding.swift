import Basics
import FeedFetch
import FeedModel
import FeedState
import Telemetry

/// The hosts a process holds on a shared state, from their claim until it
/// lets them go: the one claim → run → release sequence that a worker's
/// claims and a one-shot run (`feedmerge` with a PostgreSQL `--state`) share.
///
/// - `hold`: a claimed host is asked only until its lease runs out by this
///   process's clock (`HTTPClient.allow`), moved on by each renewal of its
///   lease keeper; a lease found lost (by a renewal, or a write its fence
///   refused) stops the host's transfers at once (`withdraw`), so the
///   per-host limit holds across a stall.
/// - A run over the hosts writes under their leases
///   (`HostClaim.leasesByFeed` → `StateOptions.leases` → `StoreRun`).
/// - `release`: the hosts' spacing waited out, their feeds' schedule written,
///   the hosts let go, and what was lost on the way said (`Released`).
public final class HostHolding: Sendable {
    /// What the holding learns while it holds, as it learns it.
    public enum News: Sendable {
        /// A renewal moved this many held hosts' deadlines on.
        case renewed(hosts: Int)
        /// Leases found lost: the line that says so (each host once while held).
        case lost(LogEvent)
        /// A renewal failed: a host whose lease is not renewed in time is asked no more.
        case renewalFailed(StateError)
    }

    public let session: StateSession
    public let client: HTTPClient
    /// Who claims, as `--health` names who fetched a feed.
    public let holder: String
    public let leaseSeconds: Int
    /// Renews the held leases from a thread of its own; its news reaches `client` at once.
    public let keeper: any LeaseKeeper
    /// The leases held (the keeper's news of any other is stale), and the hosts whose loss was said.
    private let held: Locked<HeldLeases>
    private let news: @Sendable (News) -> Void

    /// - Parameter news: told of renewals, losses and failed renewals, on the thread that learns them.
    public init(
        session: StateSession, client: HTTPClient, holder: String, leaseSeconds: Int,
        news: @escaping @Sendable (News) -> Void
    ) async {
        self.session = session
        self.client = client
        self.holder = holder
        self.leaseSeconds = leaseSeconds
        self.news = news
        let held = Locked(HeldLeases())
        self.held = held
        let lease = Self.localLease(leaseSeconds)
        let onChange: @Sendable (LeaseChange) -> Void = { change in
            func current(_ leases: [HostLease]) -> [String] {
                held.withLock { held in leases.filter { held.leases[$0.host] == $0 }.map(\.host) }
            }
            switch change {
            case .renewed(let leases, let since):
                let hosts = current(leases)
                client.allow(hosts, until: since + lease)
                news(.renewed(hosts: hosts.count))
            case .lost(let leases):
                let hosts = current(leases)
                guard !hosts.isEmpty else { return }
                client.withdraw(hosts)
                if let event = held.withLock({ $0.lost(hosts) }) { news(.lost(event)) }
            case .renewalFailed(let error):
                news(.renewalFailed(error))
            }
        }
        keeper = await session.withSharedStore { store in
            store.makeLeaseKeeper(leaseSeconds: leaseSeconds, onChange: onChange)
        }
    }

    /// How long this process takes a lease to hold from when its claim or
    /// renewal was sent: the lease's length less a tenth (at least 0.1 s), so
    /// that its own clock running a little fast never makes it ask a host
    /// the server has let go.
    static func localLease(_ seconds: Int) -> Duration {
        .milliseconds(seconds * 1000 - max(100, seconds * 100))
    }

    /// Holds claimed hosts (besides those held already: a one-shot run claims
    /// again for the feeds of the lists it read), asked while their leases
    /// hold from `claimedAt` (when the claim was sent), renewed by the keeper.
    public func hold(_ claims: [HostClaim], from claimedAt: ContinuousClock.Instant) {
        let leases = claims.map(\.lease)
        let all = held.withLock { held in
            for lease in leases { held.leases[lease.host] = lease }
            return Array(held.leases.values)
        }
        client.allow(leases.map(\.host), until: claimedAt + Self.localLease(leaseSeconds))
        keeper.keep(all)
    }

    /// Lets the claims' hosts go with their feeds' schedule (`SharedSchedule.release`),
    /// once each host's spacing has passed since this process's last request there (the
    /// next holder's first request keeps it too). They are let go here whatever the state
    /// says: a release that failed is `Released.retry`, to try again (else their leases run out).
    /// - Parameters:
    ///   - listed: every listed feed of a host (`SharedSchedule.release`).
    ///   - backstop: a pushed feed's earliest next poll (`SharedSchedule.release`).
    public func release(
        _ claims: [HostClaim], state: StateOptions, now: Timestamp,
        listed: @escaping @Sendable (Set<String>) -> [String: [String]],
        backstop: @escaping @Sendable (String) -> Timestamp? = { _ in nil }
    ) async -> Released {
        let hosts = claims.map(\.lease.host)
        await client.waitForSpacing(of: hosts)
        // Renewed no more before they are let go: a renewal after the release would find them
        // lost (the keeper's news of a lease it no longer keeps is stale).
        keeper.keep(held.withLock { held in held.leases.values.filter { !hosts.contains($0.host) } })
        let release = Release(
            claims: claims, holder: holder, now: now, leaseSeconds: leaseSeconds, listed: listed, backstop: backstop)
        let (performed, dropped) = await session.withSharedStore { [state] store in
            (
                Result { () throws(StateError) in try release.perform(store: store, state: state) },
                store.takeDroppedOutcomes()
            )
        }
        var released = Released(dropped: Set(dropped))
        var lostAtRelease: [HostLease] = []
        switch performed {
        case .success(let lost): lostAtRelease = lost
        case .failure(let error):
            released.failure = error
            released.retry = release
        }
        // Each host once, however it was found lost: by a renewal, a fenced write, or at release.
        let hostOf = Dictionary(claims.flatMap { claim in claim.feeds.map { ($0, claim.lease.host) } }) { a, _ in a }
        released.lostHosts = Set((lostAtRelease + keeper.takeLost()).map(\.host))
        released.lostHosts.formUnion(dropped.compactMap { hostOf[$0] })
        // However it was found (a host's deadline may have stopped its transfers before any news), each loss is said.
        if let event = held.withLock({ $0.lost(released.lostHosts) }) { news(.lost(event)) }
        letGo(hosts)
        return released
    }

    /// Tries again a release that failed (`Released.retry`).
    /// - Returns: the leases found lost (none when its leases have run out meanwhile, and
    ///   nothing is left to let go); nil when it failed again, and is worth another try.
    public func retry(_ release: Release, state: StateOptions) async -> [HostLease]? {
        await session.withSharedStore { [state] store in
            do throws(StateError) {
                return try release.perform(store: store, state: state)
            } catch {
                return release.hasRunOut ? [] : nil
            }
        }
    }

    private func letGo(_ hosts: [String]) {
        let remaining = held.withLock { held in
            for host in hosts { held.leases[host] = nil }
            if held.leases.isEmpty { held.saidLost = [] }
            return Array(held.leases.values)
        }
        keeper.keep(remaining)
        client.forget(hosts)
    }

    /// The leases held, by host, and the hosts whose loss was said.
    struct HeldLeases {
        var leases: [String: HostLease] = [:]
        var saidLost: Set<String> = []

        /// The line for the hosts among `hosts` whose loss was not said yet (nil: none).
        mutating func lost(_ hosts: some Sequence<String>) -> LogEvent? {
            let unsaid = hosts.filter { saidLost.insert($0).inserted }.sorted()
            guard !unsaid.isEmpty else { return nil }
            return LogEvent(
                .warning, "lease_lost",
                unsaid.count == 1
                    ? "lost the lease on \(unsaid[0]) (another process holds it now): its transfers are stopped"
                    : "lost the leases on \(unsaid.joined(separator: ", ")) (another process holds them now): "
                        + "their transfers are stopped",
                [("hosts", .text(unsaid.joined(separator: " ")))])
        }
    }
}

/// What letting a claim's hosts go came to.
public struct Released: Sendable {
    /// The hosts whose leases were found lost while held or at release, each once.
    public var lostHosts: Set<String> = []
    /// The feeds whose outcomes the fence dropped (their lease was lost).
    public var dropped: Set<String> = []
    /// The state could not let them go: why, and the release to try again.
    public var failure: StateError?
    public var retry: Release?
}

/// A claim's hosts to let go, with their feeds' schedule (written when it succeeds).
public struct Release: Sendable {
    let claims: [HostClaim]
    /// Who claimed them.
    let holder: String
    let now: Timestamp
    /// When the leases have run out on the server, renewed no more since this was made: then
    /// there is nothing left to let go, and the feeds not scheduled are due for whoever claims.
    let runsOut: ContinuousClock.Instant

    /// Every listed feed of a host (`SharedSchedule.release`).
    let listed: @Sendable (Set<String>) -> [String: [String]]
    /// A pushed feed's earliest next poll (`SharedSchedule.release`).
    let backstop: @Sendable (String) -> Timestamp?

    init(
        claims: [HostClaim], holder: String, now: Timestamp, leaseSeconds: Int,
        listed: @escaping @Sendable (Set<String>) -> [String: [String]],
        backstop: @escaping @Sendable (String) -> Timestamp?
    ) {
        self.claims = claims
        self.holder = holder
        self.listed = listed
        self.backstop = backstop
        self.now = now
        runsOut = .now + .seconds(leaseSeconds)
    }

    var hasRunOut: Bool { ContinuousClock.now >= runsOut }

    /// - Returns: the leases found lost.
    func perform(store: any SharedStateStore, state: StateOptions) throws(StateError) -> [HostLease] {
        try SharedSchedule.release(
            claims, holder: holder, store: store, state: state, now: now, listed: listed, backstop: backstop)
    }
}
