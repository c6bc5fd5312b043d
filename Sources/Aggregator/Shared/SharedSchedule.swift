import Basics
import FeedModel
import FeedState

/// What a process writes back when it lets its hosts go: each fetched
/// feed's next check by the run's `FeedSchedule` (never before the
/// server's Retry-After, max-age or Expires: whichever process claims the
/// host next honours it).
public enum SharedSchedule {
    public static func release(
        _ leases: [HostLease], feeds urls: [String], store: any SharedStateStore, state: StateOptions, now: Timestamp
    ) throws(StateError) -> [HostLease] {
        guard !leases.isEmpty else { return [] }
        let facts = urls.isEmpty ? [:] : try store.feeds(urls)
        var schedule: [ScheduledFeed] = []
        let hostWaits = state.schedule.hostWaits(facts.values.map(\.0), now: now)
        for url in urls {
            guard let (record, dates) = facts[url] else { continue }
            schedule.append(
                ScheduledFeed(
                    url: url,
                    nextCheck: state.schedule.nextCheck(
                        record: record, entriesStored: dates?.count ?? 0, keepDays: state.keepDays, now: now,
                        hostNotBefore: hostWaits[URLAuthority.host(of: record.movedTo ?? url)])))
        }
        return try store.release(leases, schedule: schedule)
    }
}
