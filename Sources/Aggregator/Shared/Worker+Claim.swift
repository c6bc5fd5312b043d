import Basics
import FeedFetch
import FeedModel
import FeedState
import Subscriptions
import Telemetry
import TimelineMerge
import WebSub

extension Worker {
    /// What one claim came to, for its line: each outcome counted once, as
    /// stored (fetched, not modified, failed) or not.
    struct Batch: Sendable {
        var feeds = 0
        var fetched = 0
        var notModified = 0
        var failed = 0
        var notStored = 0
        var leasesLost = 0
        /// The state failed during the claim (said as it happened).
        var stateFailed = false
        /// The hosts could not be let go: tried again before the next claim.
        var unreleased: Release?
    }

    /// One claim's feeds fetched and stored, then its hosts let go with their schedule.
    /// - Parameters:
    ///   - claimedAt: when the claim was sent (its leases hold from then).
    ///   - pushes: feeds a WebSub hub delivered: stored as if fetched, not fetched.
    func fetch(
        _ claims: [HostClaim], claimedAt: ContinuousClock.Instant, rules: TimelineRules,
        pushes: [String: WebSubSubscriber.Push] = [:]
    ) async -> Batch {
        var batch = Batch()
        holding.hold(claims, from: claimedAt)
        // One host's feeds after another would keep the run's window on one host at a time (its
        // per-host limit the only transfers in flight): the hosts' feeds are dealt in turn.
        var urls: [String] = []
        for round in 0..<(claims.map(\.feeds.count).max() ?? 0) {
            for claim in claims where round < claim.feeds.count { urls.append(claim.feeds[round]) }
        }
        batch.feeds = urls.count
        let read = await state.session.withSharedStore { [urls] store in
            Result { () throws(StateError) in try store.feeds(urls).mapValues(\.record) }
        }
        var records: [String: FeedRecord] = [:]
        var readFailure: StateError?
        switch read {
        case .success(let read): records = read
        case .failure(let error): readFailure = error
        }
        var reports: [FeedReport] = []
        if let readFailure {
            // Fetched without their validators, nothing of them could be stored either.
            metrics.add(.stateErrors)
            log(
                LogEvent(
                    .error, "state_error",
                    "state: cannot read the claimed feeds' records (\(readFailure)); they are not fetched",
                    [("reason", .text("\(readFailure)"))]))
            batch.stateFailed = true
        } else {
            let (ran, failed) = await run(
                urls, leases: HostClaim.leasesByFeed(claims), records: records, rules: rules, pushes: pushes)
            reports = ran
            batch.stateFailed = failed
        }
        let released = await holding.release(
            claims, state: state, now: rules.now,
            listed: { [list] hosts in list.urls(onHosts: hosts) },
            backstop: { [subscriber, now = rules.now] url in
                guard let subscriber, subscriber.isPushed(url) else { return nil }
                return Timestamp(secondsSince1970: now.secondsSince1970 + subscriber.settings.backstopSeconds)
            })
        if let failure = released.failure {
            metrics.add(.stateErrors)
            log(
                LogEvent(
                    .error, "state_error",
                    "state: cannot let the claimed hosts go (\(failure)); trying again before the next claim",
                    [("reason", .text("\(failure)"))]))
            batch.unreleased = released.retry
            batch.stateFailed = true
        }
        count(reports, dropped: released.dropped, into: &batch)
        batch.notStored += urls.count - reports.count
        batch.leasesLost = released.lostHosts.count
        metrics.add(.leasesLost, Double(released.lostHosts.count))
        metrics.add(.outcomesNotStored, Double(batch.notStored))
        return batch
    }

    /// The claimed feeds through `Aggregator.run`; what the state could not do is said now.
    /// - Returns: the reports, and whether the state failed for any.
    /// - Parameter leases: the lease each feed is written under (a feed whose lease is lost is not written).
    private func run(
        _ urls: [String], leases: [String: HostLease], records: [String: FeedRecord], rules: TimelineRules,
        pushes: [String: WebSubSubscriber.Push]
    ) async -> (reports: [FeedReport], stateFailed: Bool) {
        var sublist = SubscriptionList()
        sublist.subscriptions = urls.map { url in list.subscription(for: url) ?? Subscription(url: url) }
        for (url, push) in pushes {
            // As if fetched from where the feed is fetched, keeping the validators stored: the
            // backstop poll's conditional request is about the copy it last fetched.
            let record = records[url]
            var response = LocalFile.response(body: push.body, url: record?.movedTo ?? url)
            response.headers.contentType = push.contentType
            response.headers.link = push.link
            response.headers.etag = record?.etag
            response.headers.lastModified = record?.lastModified
            sublist.alreadyRead[url] = response
        }
        var runState = state
        runState.readsStoredDates = false
        runState.dueOnly = false
        runState.health = false
        runState.leases = leases
        var result = await Aggregator.run(sublist, client: client, rules: rules, state: runState, records: records)
        for diagnostic in result.diagnostics {
            metrics.add(.stateErrors)
            log(LogEvent(.error, "state_error", diagnostic))
        }
        tell(result.reports, now: rules.now)
        for report in result.reports { subscriber?.observe(feed: report.subscription.url, advert: report.websub) }
        // Each state failure of the claim's feeds once, with the first feed it struck and how many more.
        var struck: [String: [String]] = [:]
        for report in result.reports where report.stateFailed {
            for notice in report.notices where notice.hasPrefix("state: ") {
                struck[notice, default: []].append(report.subscription.url)
            }
        }
        for (notice, feeds) in struck.sorted(by: { $0.key < $1.key }) {
            let more = feeds.count > 1 ? " and \(feeds.count - 1) more feed\(feeds.count > 2 ? "s" : "")" : ""
            metrics.add(.stateErrors)
            log(LogEvent(.error, "state_error", "\(feeds[0])\(more): \(notice)", [("url", .text(feeds[0]))]))
        }
        _ = result.takeEntries()
        return (result.reports, !result.diagnostics.isEmpty || !struck.isEmpty)
    }

    /// Counts each outcome once: stored by its kind, else not stored.
    private func count(_ reports: [FeedReport], dropped: Set<String>, into batch: inout Batch) {
        for report in reports {
            if report.notStored || dropped.contains(report.subscription.url) {
                batch.notStored += 1
                continue
            }
            switch report.status {
            case .ok: batch.fetched += 1
            case .notModified: batch.notModified += 1
            case .failed, .gone: batch.failed += 1
            case .deferred: break
            }
        }
    }
}

extension Worker.Totals {
    mutating func add(_ batch: Worker.Batch, hosts: Int) {
        claims += 1
        self.hosts += hosts
        fetched += batch.fetched
        notModified += batch.notModified
        failed += batch.failed
        notStored += batch.notStored
        leasesLost += batch.leasesLost
    }
}
