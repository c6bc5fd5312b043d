import Basics
import FeedModel
import FeedState
import Foundation

/// Claiming, in one short transaction each: `FOR UPDATE SKIP LOCKED` on the
/// hosts' rows, so that processes claiming at once take different hosts
/// and never wait for each other (a row another claim is locking is
/// skipped, not waited for), and each lease gets a new token from a
/// sequence. The fetches happen outside any transaction; each outcome is
/// written fenced by its token (`Statements.fenced`).
extension PostgreSQLStateStore: SharedStateStore {
    /// A chunk the server refuses is sent again feed by feed: a URL it
    /// cannot store costs only its own feed, never the list's.
    public func subscribe(_ urls: [String], now: Timestamp) throws(StateError) -> [String: StateError] {
        try flush()
        var refused: [String: StateError] = [:]
        func send(_ part: [String]) throws(StateError) -> StateError? {
            let parameters: [Parameter] = [
                .texts(part), .integer(now.secondsSince1970), .texts(part.map { URLAuthority.host(of: $0) }),
            ]
            return try connection.pipeline(
                [(SharedStatements.subscribe, parameters), (SharedStatements.addHosts, [.texts(part)])], durable: true)
        }
        for chunk in stride(from: 0, to: urls.count, by: Self.subscribeChunk) {
            let part = Array(urls[chunk..<min(chunk + Self.subscribeChunk, urls.count)])
            guard try send(part) != nil else {
                noteAdded(part.count)
                continue
            }
            for url in part {
                if let failure = try send([url]) { refused[url] = failure }
            }
        }
        return refused
    }

    static let subscribeChunk = 10_000

    public func claim(_ request: ClaimRequest) throws(StateError) -> [HostClaim] {
        try flush()
        let now = request.now.secondsSince1970
        let listedSince = now - ClaimRequest.listedWithin
        // The hosts to claim from (a one-shot run: its feeds' hosts), then the claim itself.
        var feedsOfHost: [String: [String]] = [:]
        var claimStatement = SharedStatements.claimDue
        var parameters: [Parameter] = [
            .integer(now), .integer(Int64(request.hosts)), .text(request.holder), .integer(Int64(request.leaseSeconds)),
            .integer(listedSince),
        ]
        if case .feeds(let urls) = request.scope {
            feedsOfHost = try retrying { () throws(StateError) in
                var feedsOfHost: [String: [String]] = [:]
                try connection.query(SharedStatements.hostsOfFeeds, [.texts(urls)]) { row throws(StateError) in
                    try feedsOfHost[row.text(1, notNull: "feeds.host"), default: []]
                        .append(row.text(0, notNull: "feeds.url"))
                }
                return feedsOfHost
            }
            claimStatement = SharedStatements.claimHosts
            parameters[4] = .texts(feedsOfHost.keys.sorted())
        }
        try reopenIfLost()
        if case .due = request.scope { try unscheduleUnlisted(now: now, listedSince: listedSince) }
        // On the server's disk before any claimed host is asked (the session's commits do not wait
        // for it): a server that crashes then cannot forget the claim and hand the hosts out twice.
        let leases = try connection.durably { () throws(StateError) in
            var leases: [HostLease] = []
            func claim(_ statement: Statement, _ parameters: [Parameter]) throws(StateError) {
                // (The claim has just set each lease's token: it is there whatever the column allows.)
                try connection.query(statement, parameters) { row throws(StateError) in
                    leases.append(
                        HostLease(
                            host: try row.text(0, notNull: "hosts.host"),
                            token: try row.integer(1, notNull: "hosts.lease_token")))
                }
            }
            guard case .due = request.scope else {
                try claim(claimStatement, parameters)
                return leases.sorted { $0.host < $1.host }
            }
            // The hosts whose feeds have waited longest first: else, with more due than the workers
            // fetch, the hosts that sort first would be claimed again and again, and the last ones
            // never. Looked for among the longest-due feeds (an index walk, however many hosts);
            // when those hosts are held, any host with a feed due, in name order.
            try claim(
                SharedStatements.claimWaiting,
                parameters + [.integer(Int64(request.hosts * SharedStatements.waitingFeedsPerHost))])
            if leases.count < request.hosts {
                var rest = parameters
                rest[1] = .integer(Int64(request.hosts - leases.count))
                try claim(claimStatement, rest)
            }
            return leases.sorted { $0.host < $1.host }
        }
        if case .due = request.scope {
            claimedWithNothingStored = []
            guard !leases.isEmpty else { return [] }
            // Read under the leases just taken: a feed with nothing stored now has nothing until
            // this process stores it (its history is then not asked of the server).
            try connection.query(
                SharedStatements.dueFeeds,
                [
                    .texts(leases.map(\.host)), .integer(now), .integer(listedSince),
                    .integer(request.feedsPerHost.map(Int64.init)),
                ]
            ) { row throws(StateError) in
                let url = try row.text(0, notNull: "feeds.url")
                try feedsOfHost[row.text(1, notNull: "feeds.host"), default: []].append(url)
                if try row.flag(2, notNull: "nothing stored") { claimedWithNothingStored.insert(url) }
            }
        }
        return leases.map { HostClaim(lease: $0, feeds: feedsOfHost[$0.host] ?? []) }
    }

    /// Takes the feeds no run lists any more out of the schedule (their `next_check` cleared),
    /// at most once in `SharedStatements.relistAfter` of the claims' time. Nothing claims them,
    /// so their last `next_check` would stay at the front of `feeds_next_check` for good, and
    /// every claim (`claimWaiting`) and count of the due would walk past them. Listed again,
    /// such a feed is due at once, as it was (only the due are taken out).
    private func unscheduleUnlisted(now: Int64, listedSince: Int64) throws(StateError) {
        if let last = unscheduledAt, now >= last, now - last < SharedStatements.relistAfter { return }
        try connection.query(SharedStatements.unscheduleUnlisted, [.integer(now), .integer(listedSince)])
        unscheduledAt = now
    }

    public func record(_ update: FeedUpdate, fencedBy lease: HostLease) throws(StateError) {
        try record(update, lease: lease)
    }

    public func record(all updates: [FeedUpdate], fencedBy leases: [String: HostLease]) throws(StateError) {
        try record(all: updates, leases: leases)
    }

    public func prune(
        feeds: [String], keepDays: Int, keepPerFeed: Int, now: Timestamp, fencedBy leases: [String: HostLease]
    ) throws(StateError) {
        try prune(feeds: feeds, keepDays: keepDays, keepPerFeed: keepPerFeed, now: now, leases: leases)
    }

    public func dueCount(now: Timestamp, atMost: Int?) throws(StateError) -> Int {
        try flush()
        let now = now.secondsSince1970
        return try retrying { () throws(StateError) in
            var count = 0
            try connection.query(
                SharedStatements.dueCount,
                [.integer(now), .integer(now - ClaimRequest.listedWithin), .integer(atMost.map(Int64.init))]
            ) { row throws(StateError) in
                count = Int(try row.integer(0, notNull: "count(*)"))
            }
            return count
        }
    }

    public func listedFeeds(now: Timestamp, after: String?, limit: Int?) throws(StateError) -> [String] {
        try flush()
        return try retrying { () throws(StateError) in
            var urls: [String] = []
            try connection.query(
                SharedStatements.listedFeeds,
                [
                    .integer(now.secondsSince1970 - ClaimRequest.listedWithin), .text(after),
                    .integer(limit.map(Int64.init)),
                ]
            ) { row throws(StateError) in urls.append(try row.text(0, notNull: "feeds.url")) }
            return urls
        }
    }

    public func feeds(_ urls: [String]) throws(StateError) -> [String: (record: FeedRecord, dates: StoredDates?)] {
        try flush()
        return try retrying { () throws(StateError) in
            var result: [String: (record: FeedRecord, dates: StoredDates?)] = [:]
            try connection.query(SharedStatements.selectFeedsByURL, [.texts(urls)]) { row throws(StateError) in
                let record = try Self.feedRecord(row)
                result[record.url] = (record, row.bytes(21).flatMap(StoredDates.init(encoded:)))
            }
            return result
        }
    }

    public func release(_ leases: [HostLease], schedule: [ScheduledFeed], fetchedBy holder: String) throws(StateError)
        -> [HostLease]
    {
        if let failure = try commit().first { throw failure.value }
        var byLease: [HostLease: [ScheduledFeed]] = [:]
        for feed in schedule { byLease[feed.lease, default: []].append(feed) }
        var statements: [(Statement, [Parameter])] = []
        var releases: [Int: HostLease] = [:]
        // Let go in the hosts' order, as the lease keeper renews (`Statements.lockLeaseHosts`).
        for lease in leases.sorted(by: { $0.host < $1.host }) {
            let feeds = byLease[lease] ?? []
            if !feeds.isEmpty {
                statements.append(
                    (
                        SharedStatements.schedule,
                        [
                            .texts(feeds.map(\.url)), .integers(feeds.map { $0.nextCheck?.secondsSince1970 }),
                            .text(holder), .text(lease.host), .integer(lease.token),
                        ]
                    ))
                // A feed that moved may now be on a host no row names yet.
                statements.append((SharedStatements.addHosts, [.texts(feeds.map(\.url))]))
            }
            releases[statements.count] = lease
            statements.append((SharedStatements.release, [.text(lease.host), .integer(lease.token)]))
        }
        var held: Set<HostLease> = []
        try reopenIfLost()
        if let failure = try connection.pipeline(
            statements, durable: true,
            affected: { index, rows in if rows > 0, let lease = releases[index] { held.insert(lease) } })
        {
            throw failure
        }
        return leases.filter { !held.contains($0) }
    }

    public func takeDroppedOutcomes() -> [String] {
        defer { dropped = [] }
        return dropped
    }

    public func makeLeaseKeeper(leaseSeconds: Int, onChange: @escaping @Sendable (LeaseChange) -> Void)
        -> any LeaseKeeper
    {
        let keeper = PostgreSQLLeaseKeeper(conninfo: conninfo, leaseSeconds: leaseSeconds, onChange: onChange)
        self.keeper = keeper
        return keeper
    }
}

/// The statements of a shared state.
enum SharedStatements {
    /// A feed among the URLs of $1, as a semi-join: the URL index is a hash
    /// index, whose matches are checked again against the condition, and
    /// `url = ANY($1)` would check each against the whole array (14,286 URLs
    /// among 100,000: 2.7 s, against 61 ms this way).
    static let urlIn = "url IN (SELECT unnest($1::text[]))"
    /// $1 the URLs, $2 now, $3 their hosts: new feeds due at once; every listed feed noted as
    /// listed now, but for those some process noted within `relistAfter` seconds: workers that
    /// start together with one long list write its rows once, not once each, and lock none of
    /// them twice. Rows are written in URL order, as a batch locks them (`selectRecordRows`),
    /// so a subscription and a batch never wait for each other in a circle.
    /// A listed feed is noted as listed again once this many seconds have passed since it
    /// last was (a worker notes its list every hour; `ClaimRequest.listedWithin` is two days).
    static let relistAfter: Int64 = 1_800
    static let subscribe = Statement(
        name: "subscribe",
        sql: """
            INSERT INTO feeds AS f(url, host, first_seen, listed_at, next_check)
            SELECT u, h, $2, $2, 0 FROM unnest($1, $3) AS s(u, h)
            WHERE NOT EXISTS (SELECT 1 FROM feeds g WHERE g.url = s.u AND g.listed_at >= $2 - \(Self.relistAfter))
            ORDER BY u
            \(Statements.onURL) DO UPDATE SET listed_at = GREATEST(f.listed_at, excluded.listed_at),
                next_check = COALESCE(f.next_check, CASE WHEN f.gone THEN NULL ELSE 0 END)
            """, types: [1009, 20, 1009])
    static let addHosts = Statement(
        name: "add_hosts",
        sql: "INSERT INTO hosts(host) SELECT DISTINCT host FROM feeds WHERE \(Self.urlIn) ON CONFLICT DO NOTHING",
        types: [1009])
    static let hostsOfFeeds = Statement(
        name: "hosts_of_feeds", sql: "SELECT url, host FROM feeds WHERE \(Self.urlIn)", types: [1009])
    /// The claim's common end: $3 holder, $4 lease seconds.
    private static let take = """
        UPDATE hosts h SET lease_holder = $3, lease_token = nextval('lease_tokens'),
            lease_until = \(Statements.serverNow) + $4
        FROM free WHERE h.host = free.host RETURNING h.host, h.lease_token
        """
    private static let free = "(h.lease_until IS NULL OR h.lease_until < \(Statements.serverNow))"
    /// $1 now, $2 listed since: the due feeds no run lists since, taken out of the schedule
    /// (those another transaction is writing are left for the next time, never waited for).
    static let unscheduleUnlisted = Statement(
        name: "unschedule_unlisted",
        sql: """
            UPDATE feeds f SET next_check = NULL FROM (
                SELECT url FROM feeds WHERE next_check <= $1 AND (listed_at < $2 OR listed_at IS NULL)
                FOR UPDATE SKIP LOCKED) unlisted
            WHERE f.url = unlisted.url
            """, types: [20, 20])
    /// How many of the longest-due feeds `claimWaiting` looks at, for each host it claims.
    static let waitingFeedsPerHost = 64
    /// $1 now, $2 how many hosts, $5 listed since, $6 how many feeds: the free hosts of the $6
    /// feeds due longest (`feeds_next_check`), the host whose feed has waited longest first.
    static let claimWaiting = Statement(
        name: "claim_waiting",
        sql: """
            WITH waiting AS (
                SELECT host, min(next_check) AS due FROM (
                    SELECT host, next_check FROM feeds WHERE next_check <= $1 AND listed_at >= $5
                    ORDER BY next_check LIMIT $6) longest
                GROUP BY host),
            free AS (
                SELECT h.host FROM hosts h JOIN waiting w ON w.host = h.host WHERE \(free)
                ORDER BY w.due, h.host LIMIT $2 FOR UPDATE OF h SKIP LOCKED)
            \(take)
            """, types: [20, 20, 25, 20, 20, 20])
    /// $1 now, $2 how many hosts, $5 listed since: hosts with a feed due, in name order.
    static let claimDue = Statement(
        name: "claim_due",
        sql: """
            WITH free AS (
                SELECT h.host FROM hosts h
                WHERE \(free) AND EXISTS (
                    SELECT 1 FROM feeds f WHERE f.host = h.host AND f.next_check <= $1 AND f.listed_at >= $5)
                ORDER BY h.host LIMIT $2 FOR UPDATE OF h SKIP LOCKED)
            \(take)
            """, types: [20, 20, 25, 20, 20])
    /// $5 the hosts.
    static let claimHosts = Statement(
        name: "claim_hosts",
        sql: """
            WITH free AS (
                SELECT h.host FROM hosts h WHERE h.host = ANY($5) AND \(free)
                ORDER BY h.host LIMIT $2 FOR UPDATE OF h SKIP LOCKED)
            \(take)
            """, types: [20, 20, 25, 20, 1009])
    /// $1 hosts, $2 now, $3 listed since, $4 at most this many a host (NULL: all), the longest due first;
    /// each with whether it has nothing stored (never fetched, and no document: looked for only then).
    static let dueFeeds = Statement(
        name: "due_feeds",
        sql: """
            SELECT f.url, f.host, f.nothing_stored FROM unnest($1::text[]) AS c(host) CROSS JOIN LATERAL (
                SELECT url, host, CASE WHEN last_fetch IS NULL
                    THEN NOT EXISTS (SELECT FROM feed_entries e WHERE e.feed = feeds.id) ELSE false END AS nothing_stored
                FROM feeds WHERE host = c.host AND next_check <= $2 AND listed_at >= $3
                ORDER BY next_check, url LIMIT $4) f
            ORDER BY f.url
            """, types: [1009, 20, 20, 20])
    /// $1 now, $2 listed since, $3 at most (NULL: all).
    static let dueCount = Statement(
        name: "due_count",
        sql: "SELECT count(*) FROM (SELECT FROM feeds WHERE next_check <= $1 AND listed_at >= $2 LIMIT $3) due",
        types: [20, 20, 20])
    /// $1 listed since, $2 after this URL (NULL: from the first), $3 at most (NULL: all).
    static let listedFeeds = Statement(
        name: "listed_feeds",
        sql: """
            SELECT url FROM feeds WHERE listed_at >= $1 AND ($2::text IS NULL OR url COLLATE "C" > $2)
            ORDER BY url COLLATE "C" LIMIT $3
            """,
        types: [20, 25, 20])
    static let selectFeedsByURL = Statement(
        name: "select_feeds_by_url",
        sql: "SELECT \(Statements.recordColumns), entry_dates FROM feeds WHERE \(urlIn)",
        types: [1009])
    /// $1 URLs, $2 their next checks, $3 who fetched them; while the lease ($4 host, $5 token) holds.
    static let schedule = Statement(
        name: "schedule",
        sql: """
            UPDATE feeds f SET next_check = s.next_check, fetched_by = $3
            FROM unnest($1, $2) AS s(url, next_check)
            WHERE f.url = s.url AND EXISTS (SELECT 1 FROM hosts WHERE host = $4 AND lease_token = $5)
            """, types: [1009, 1016, 25, 25, 20])
    /// $1 host, $2 token: no rows when the lease was lost.
    static let release = Statement(
        name: "release",
        sql: """
            UPDATE hosts SET lease_holder = NULL, lease_token = NULL, lease_until = NULL
            WHERE host = $1 AND lease_token = $2
            """, types: [25, 20])
    /// $1 hosts, $2 tokens: the leases let go, if still held (locked in the hosts' order, as `renew`).
    static let abandon = Statement(
        name: "abandon",
        sql: """
            UPDATE hosts h SET lease_holder = NULL, lease_token = NULL, lease_until = NULL
            FROM (SELECT k.host FROM hosts k JOIN unnest($1, $2) AS l(host, token)
                  ON k.host = l.host AND k.lease_token = l.token
                  ORDER BY k.host FOR NO KEY UPDATE OF k) held
            WHERE h.host = held.host
            """, types: [1009, 1016])
    /// $1 hosts, $2 tokens, $3 lease seconds: the hosts still held, their rows locked in the
    /// hosts' order (`Statements.lockLeaseHosts`).
    static let renew = Statement(
        name: "renew",
        sql: """
            UPDATE hosts h SET lease_until = \(Statements.serverNow) + $3
            FROM (SELECT k.host FROM hosts k JOIN unnest($1, $2) AS l(host, token)
                  ON k.host = l.host AND k.lease_token = l.token
                  ORDER BY k.host FOR NO KEY UPDATE OF k) held
            WHERE h.host = held.host
            RETURNING h.host
            """, types: [1009, 1016, 20])
}
