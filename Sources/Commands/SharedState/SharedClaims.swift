import Aggregator
import Basics
import FeedFetch
import FeedModel
import FeedState
import Foundation
import TimelineMerge

/// A one-shot run on a shared state (PostgreSQL): the hosts of the feeds it
/// lists that no other process holds are claimed before it fetches (a feed
/// on a host another process holds is served from the state, as that
/// process leaves it), held while the run fetches and let go with the feeds'
/// schedule once it has fetched, as a worker's claims are (`HostHolding`).
/// Several runs, and workers, can then share one database at once.
struct SharedClaims {
    let holding: HostHolding
    let rules: TimelineRules
    private(set) var claims: [HostClaim] = []
    /// The lease each claimed feed is written under.
    var leasesByFeed: [String: HostLease] { HostClaim.leasesByFeed(claims) }
    /// Every feed the run lists (a host that asked everyone to wait holds them all).
    private var listed: [String] = []
    private(set) var failures: [String] = []
    private var claimed: Set<String> = []
    /// What the holding learned while the run fetched (said with the release).
    private let news: Locked<[String]>

    /// The lease a one-shot run takes, renewed while it runs.
    static let leaseSeconds = 120

    /// nil when the store is not shared, or the run fetches nothing.
    init?(session: StateSession, client: HTTPClient, renderOnly: Bool, rules: TimelineRules) async {
        guard !renderOnly, session.isShared else { return nil }
        self.rules = rules
        let news = Locked<[String]>([])
        self.news = news
        holding = await HostHolding(
            session: session, client: client, holder: Self.machineName, leaseSeconds: Self.leaseSeconds
        ) { change in
            switch change {
            case .renewalFailed(let error):
                news.withLock { $0.append("state: the claimed hosts' leases cannot be renewed (\(error))") }
            case .lost(let event):
                news.withLock { $0.append("state: \(event.message)") }
            case .renewed:
                break
            }
        }
        // A run ended by a signal lets its hosts go at once.
        let keeper = holding.keeper
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
            let (refused, claims, read, sent) = try await holding.session.withSharedStore {
                store throws(StateError) in
                // A feed the state cannot store is no other process's: this run fetches it (its
                // outcome is not kept), rather than serving it from a state that has none of it.
                let refused = try store.subscribe(urls, now: now)
                // The leases hold from when the claim is sent (a long list's subscription comes first).
                let sent = ContinuousClock.now
                let claims = try store.claim(
                    ClaimRequest(
                        scope: .feeds(urls), hosts: Int(Int32.max), holder: Self.machineName,
                        leaseSeconds: Self.leaseSeconds, now: now))
                // Another process may have stored feeds since the records were read.
                return (refused, claims, try store.feeds(), sent)
            }
            for (url, error) in refused.sorted(by: { $0.key < $1.key }) {
                failures.append("\(url): state: cannot be stored (\(error)); fetched, not kept")
                claimed.insert(url)
            }
            records = read
            holding.hold(claims, from: sent)
            self.claims += claims
            for claim in claims { claimed.formUnion(claim.feeds) }
        } catch {
            failures.append("state: the feeds' hosts cannot be claimed (\(error)); they are served from the state")
        }
        return claimed
    }

    /// Lets the hosts go with their feeds' schedule; the reports' records
    /// (read for the health report while the run held them) are read again.
    /// - Returns: what went wrong, as a run diagnostic.
    func release(state: StateOptions, reports: inout [FeedReport]) async -> String? {
        let released = await holding.release(
            claims, state: state, now: rules.now,
            listed: { [listed] hosts in URLAuthority.urls(listed, onHosts: hosts) })
        holding.keeper.stop()
        var said = failures
        if let failure = released.failure {
            said.append("state: the claimed hosts cannot be let go (\(failure)); their leases run out")
        } else if state.health {
            let urls = claims.flatMap(\.feeds)
            do throws(StateError) {
                let records = try await holding.session.withSharedStore { store throws(StateError) in
                    try store.feeds(urls).mapValues(\.record)
                }
                for index in reports.indices {
                    if let record = records[reports[index].subscription.url] { reports[index].record = record }
                }
            } catch {
                said.append(
                    "state: the claimed feeds' records cannot be read again (\(error)); the report shows them as the run began"
                )
            }
        }
        // Each lost host was said (`HostHolding.News.lost`, gathered in `news`); the outcomes it cost:
        said += news.withLock { $0 }
        if !released.dropped.isEmpty {
            said.append(
                "state: \(released.dropped.count) feeds' outcomes were dropped (their hosts' leases were lost: "
                    + "another process took them after they ran out)")
        }
        return said.isEmpty ? nil : said.joined(separator: "; ")
    }
}
