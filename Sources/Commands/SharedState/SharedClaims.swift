import Aggregator
import Basics
import FeedModel
import FeedState
import Foundation
import TimelineMerge

/// A one-shot run on a shared state (PostgreSQL): the hosts of the feeds it
/// lists that no other process holds are claimed before it fetches (a feed
/// on a host another process holds is served from the state, as that
/// process leaves it), kept by a lease keeper while the run fetches, and let
/// go with the feeds' schedule once it has fetched. Several runs, and
/// workers, can then share one database at once.
struct SharedClaims {
    let session: StateSession
    let rules: TimelineRules
    let keeper: any LeaseKeeper
    private(set) var claims: [HostClaim] = []
    var leases: [HostLease] { claims.map(\.lease) }
    /// The lease each claimed feed is written under.
    var leasesByFeed: [String: HostLease] { HostClaim.leasesByFeed(claims) }
    /// Every feed the run lists (a host that asked everyone to wait holds them all).
    private var listed: [String] = []
    private(set) var failures: [String] = []
    private var claimed: Set<String> = []
    /// What the keeper found when a renewal failed (said with the release).
    private let renewalFailures: Locked<[String]>

    /// The lease a one-shot run takes, renewed while it runs.
    static let leaseSeconds = 120

    /// nil when the store is not shared, or the run fetches nothing.
    init?(session: StateSession, renderOnly: Bool, rules: TimelineRules) async {
        guard !renderOnly, session.isShared else { return nil }
        self.session = session
        self.rules = rules
        let renewalFailures = Locked<[String]>([])
        self.renewalFailures = renewalFailures
        let keeper = await session.withSharedStore { store in
            store.makeLeaseKeeper(leaseSeconds: Self.leaseSeconds) { change in
                guard case .renewalFailed(let error) = change else { return }
                renewalFailures.withLock { $0.append("state: the claimed hosts' leases cannot be renewed (\(error))") }
            }
        }
        self.keeper = keeper
        // A run ended by a signal lets its hosts go at once.
        Termination.onSignal {
            do {
                try keeper.abandon()
            } catch {
                StandardOutput.error(
                    "feedmerge: state: the claimed hosts cannot be let go (\(error)); their leases run out")
            }
        }
    }

    /// Who a one-shot run is, as `--health` names who fetched a feed: its
    /// machine (the same on every run, so that reruns write the same bytes).
    static var machineName: String { ProcessInfo.processInfo.hostName }

    /// Subscribes the feeds and claims their free hosts.
    /// - Returns: every feed this run holds now (those it may fetch).
    mutating func claim(_ urls: [String], records: inout [String: FeedRecord]?) async -> Set<String> {
        listed += urls
        do throws(StateError) {
            let now = rules.now
            let (refused, claims, read) = try await session.withSharedStore { store throws(StateError) in
                // A feed the state cannot store is no other process's: this run fetches it (its
                // outcome is not kept), rather than serving it from a state that has none of it.
                let refused = try store.subscribe(urls, now: now)
                let claims = try store.claim(
                    ClaimRequest(
                        scope: .feeds(urls), hosts: Int(Int32.max), holder: Self.machineName,
                        leaseSeconds: Self.leaseSeconds, now: now))
                // Another process may have stored feeds since the records were read.
                return (refused, claims, try store.feeds())
            }
            for (url, error) in refused.sorted(by: { $0.key < $1.key }) {
                failures.append("\(url): state: cannot be stored (\(error)); fetched, not kept")
                claimed.insert(url)
            }
            records = read
            self.claims += claims
            for claim in claims { claimed.formUnion(claim.feeds) }
            keeper.keep(leases)
        } catch {
            failures.append("state: the feeds' hosts cannot be claimed (\(error)); they are served from the state")
        }
        return claimed
    }

    /// Lets the hosts go with their feeds' schedule; the reports' records
    /// (read for the health report while the run held them) are read again.
    /// - Returns: what went wrong, as a run diagnostic.
    func release(state: StateOptions, reports: inout [FeedReport]) async -> String? {
        keeper.stop()
        var said = failures + renewalFailures.withLock { $0 }
        do throws(StateError) {
            let (claims, listed, now) = (claims, listed, rules.now)
            let (lost, records, dropped) = try await session.withSharedStore { store throws(StateError) in
                let lost = try SharedSchedule.release(
                    claims, holder: Self.machineName, store: store, state: state, now: now,
                    listed: { host in listed.filter { URLAuthority.host(of: $0) == host } })
                let records = state.health ? try store.feeds(claims.flatMap(\.feeds)).mapValues(\.record) : [:]
                return (lost, records, store.takeDroppedOutcomes())
            }
            for index in reports.indices {
                if let record = records[reports[index].subscription.url] { reports[index].record = record }
            }
            if !lost.isEmpty || !dropped.isEmpty {
                said.append(
                    "state: \(lost.count) host leases were lost during the run (another process took them "
                        + "after they ran out); \(dropped.count) feeds' outcomes were dropped")
            }
        } catch {
            said.append("state: the claimed hosts cannot be let go (\(error)); their leases run out")
        }
        return said.isEmpty ? nil : said.joined(separator: "; ")
    }
}
