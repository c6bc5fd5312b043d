import FeedModel
import FeedState
import Telemetry
import TimelineMerge
import WebSub

extension Worker {
    /// Before each claim: what the callback learned said, the feeds pushed stored under their
    /// hosts' leases (a host another process holds: kept for the next turn), then the hubs
    /// asked what is due (subscriptions, renewals, unsubscriptions), a few at a time.
    func websubTurn(rules: TimelineRules, carried: inout Carried) async {
        guard let subscriber, let hubClient, let publicHubClient else { return }
        for event in subscriber.takeEvents() { log(Self.logEvent(event)) }
        // Before the state said what is listed, every feed counts as listed (none is let go).
        let listed = { [list, carried] (url: String) in
            carried.lastSubscribed == nil || list.contains(url) || carried.listed.contains(url)
        }
        await storePushes(subscriber, rules: rules, listed: listed)
        // After the pushes, so that a feed fetched again for a delivery it could not check is
        // subscribed in the same turn. A few per turn: a hub is asked one request a second, and
        // claims wait meanwhile.
        let requests = subscriber.due(listed: listed, limit: 4)
        guard !requests.isEmpty else { return }
        for failure in await subscriber.send(requests, client: hubClient, publicClient: publicHubClient) {
            log(LogEvent(.warning, "websub_failed", "websub: \(failure); tried again in an hour"))
        }
        for request in requests {
            log(
                LogEvent(
                    .info, "websub_asked",
                    "websub: asked \(request.hub) to \(request.mode.rawValue) to \(request.feed)",
                    [("url", .text(request.feed)), ("hub", .text(request.hub))]))
        }
    }

    /// The feeds hubs pushed, and those fetched again for a delivery this process could not
    /// check, claimed by their hosts and stored.
    private func storePushes(
        _ subscriber: WebSubSubscriber, rules: TimelineRules, listed: (String) -> Bool
    ) async {
        let refetch = subscriber.takeUnknown(listed: listed)
        let pushes = subscriber.takePushes()
        guard !pushes.isEmpty || !refetch.isEmpty else { return }
        let pushed = Dictionary(pushes.map { ($0.feed, $0) }) { _, latest in latest }
        let urls = Array(Set(pushed.keys).union(refetch)).sorted()
        let claimedAt = ContinuousClock.now
        let claiming = await state.session.withSharedStore { [settings, now = rules.now] store in
            Result { () throws(StateError) in
                try store.claim(
                    ClaimRequest(
                        scope: .feeds(urls), hosts: urls.count, holder: settings.name,
                        leaseSeconds: settings.leaseSeconds, now: now))
            }
        }
        var claims: [HostClaim] = []
        var failure: StateError?
        switch claiming {
        case .success(let made): claims = made
        case .failure(let error): failure = error
        }
        let claimed = Set(claims.flatMap(\.feeds))
        // Held by another process, or the state cannot be used now: kept for the next turn.
        subscriber.putBack(pushes.filter { !claimed.contains($0.feed) })
        if let failure {
            log(LogEvent(.error, "state_error", "state: cannot claim the hosts of pushed feeds (\(failure))"))
            return
        }
        guard !claims.isEmpty else { return }
        let batch = await fetch(
            claims, claimedAt: claimedAt, rules: rules,
            pushes: pushed.filter { claimed.contains($0.key) })
        let stored = pushed.values.filter { claimed.contains($0.feed) }
        // How long the oldest delivery stored waited, from its arrival at the callback.
        let waited = stored.map { ContinuousClock.now - $0.received }.max() ?? .zero
        let milliseconds = Int(waited.components.seconds * 1000 + waited.components.attoseconds / 1_000_000_000_000_000)
        log(
            LogEvent(
                .info, "websub_stored",
                "websub: \(stored.count) pushed feeds stored (within \(milliseconds) ms of their delivery), "
                    + "\(batch.feeds - stored.count) fetched again after a delivery this process could not check; "
                    + "\(batch.notStored) not stored",
                [
                    ("pushed", .integer(stored.count)), ("milliseconds", .integer(milliseconds)),
                    ("not_stored", .integer(batch.notStored)),
                ]))
    }

    static func logEvent(_ event: WebSubSubscriber.Event) -> LogEvent {
        let fields: [(String, LogEvent.Value)] = [("url", .text(event.feed)), ("detail", .text(event.detail))]
        switch event.kind {
        case .verified:
            return LogEvent(.info, "websub_verified", "websub: \(event.feed) subscribed (\(event.detail))", fields)
        case .unsubscribed:
            return LogEvent(
                .info, "websub_unsubscribed", "websub: \(event.feed) unsubscribed (\(event.detail))", fields)
        case .denied:
            return LogEvent(
                .warning, "websub_denied", "websub: the hub denied \(event.feed) (\(event.detail)); it is polled",
                fields)
        case .badSignature:
            return LogEvent(
                .warning, "websub_bad_signature",
                "websub: a delivery for \(event.feed) dropped: \(event.detail)", fields)
        case .gone:
            return LogEvent(.info, "websub_gone", "websub: \(event.feed): \(event.detail)", fields)
        case .unknown:
            return LogEvent(
                .warning, "websub_unknown",
                "websub: \(event.feed): \(event.detail) (made before this process started?): fetched and "
                    + "subscribed again if listed, else unsubscribed", fields)
        }
    }
}
