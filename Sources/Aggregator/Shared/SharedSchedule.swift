import Basics
import FeedModel
import FeedState

/// What a process writes back when it lets its hosts go: each fetched
/// feed's next check by the run's `FeedSchedule` (never before the
/// server's Retry-After, max-age or Expires: whichever process claims the
/// host next honours it).
public enum SharedSchedule {
    /// - Parameters:
    ///   - holder: who fetched the feeds (the claim's holder), as `--health` names it.
    ///   - listed: every listed feed of each of these hosts, by host (asked, once,
    ///     only of the hosts that asked everyone to wait: their feeds outside the
    ///     claim wait too).
    ///   - backstop: for a feed whose changes a WebSub hub pushes, the earliest
    ///     it is polled again (nil: polled by its schedule alone).
    public static func release(
        _ claims: [HostClaim], holder: String, store: any SharedStateStore, state: StateOptions, now: Timestamp,
        listed: (Set<String>) -> [String: [String]] = { _ in [:] },
        backstop: (String) -> Timestamp? = { _ in nil }
    ) throws(StateError) -> [HostLease] {
        guard !claims.isEmpty else { return [] }
        let urls = claims.flatMap(\.feeds)
        let leases = HostClaim.leasesByFeed(claims)
        let byHost = Dictionary(claims.map { ($0.lease.host, $0.lease) }) { first, _ in first }
        let facts = urls.isEmpty ? [:] : try store.feeds(urls)
        var schedule: [ScheduledFeed] = []
        let hostWaits = state.schedule.hostWaits(facts.values.map(\.0), now: now)
        for url in urls {
            guard let (record, dates) = facts[url], let lease = leases[url] else { continue }
            var next = state.schedule.nextCheck(
                record: record, entriesStored: dates?.count ?? 0, keepDays: state.keepDays, now: now,
                hostNotBefore: hostWaits[URLAuthority.host(of: record.movedTo ?? url)])
            if let polled = next, let pushed = backstop(url) { next = max(polled, pushed) }
            schedule.append(ScheduledFeed(url: url, nextCheck: next, lease: lease))
        }
        // A host that asked everyone to wait: its other feeds are not due before the wait is over.
        let claimed = Set(urls)
        let waiting = hostWaits.keys.filter { byHost[$0] != nil }
        let listedOfHost = waiting.isEmpty ? [:] : listed(Set(waiting))
        for host in waiting {
            guard let lease = byHost[host], let wait = hostWaits[host] else { continue }
            let others = (listedOfHost[host] ?? []).filter { !claimed.contains($0) }
            guard !others.isEmpty else { continue }
            for (url, (record, _)) in try store.feeds(others) where !record.gone {
                schedule.append(ScheduledFeed(url: url, nextCheck: max(record.nextCheck ?? wait, wait), lease: lease))
            }
        }
        return try store.release(claims.map(\.lease), schedule: schedule, fetchedBy: holder)
    }
}
