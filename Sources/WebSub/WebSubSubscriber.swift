import Basics
import FeedFetch
import Foundation
import RequestSigning

/// A worker's WebSub subscriptions (the W3C Recommendation's subscriber):
/// it subscribes to the feeds that advertise a hub, answers the hubs'
/// verifications of intent, checks each delivery's signature and hands the
/// worker the feeds pushed, renews before a lease ends and unsubscribes from
/// feeds no list names any more.
///
/// Nothing of it is stored: the callback's address names the feed
/// (`callbackURL`), and a subscription's secret is an HMAC of its feed, topic
/// and hub under a key this process drew at its start. A process that starts
/// again does not know the subscriptions its predecessor made: the first
/// delivery of one (its signature cannot be checked) is dropped, and the
/// feed is fetched and subscribed again (or, no list naming it any more,
/// unsubscribed), at most once an hour per feed.
///
/// The callback's thread (`CallbackListener`) and the worker meet on `table`.
public final class WebSubSubscriber: Sendable {
    public struct Settings: Sendable {
        /// The callback's public address (`https://planet.example.org/websub`): each feed's is
        /// this, a slash, and the feed's address in base64url.
        public var callback: String
        /// The lease asked of a hub (it may grant another).
        public var leaseSeconds = 10 * 86_400
        /// The longest a feed subscribed through a hub goes unpolled: the backstop for pushes lost.
        public var backstopSeconds: Int64 = 86_400
        /// A delivery larger than this is refused (as a fetch's body would be).
        public var maximumBodyBytes = 16 << 20

        public init(callback: String) {
            self.callback = callback.hasSuffix("/") ? String(callback.dropLast()) : callback
        }
    }

    /// A feed's content as a hub delivered it, its signature checked.
    public struct Push: Sendable {
        public var feed: String
        public var body: [UInt8]
        public var contentType: String?
        public var link: String?
        /// When the callback received it.
        public var received: ContinuousClock.Instant
    }

    /// What the callback's thread learned, for the worker's log.
    public struct Event: Sendable, Equatable {
        public enum Kind: String, Sendable { case verified, unsubscribed, denied, badSignature, unknown, gone }
        public var kind: Kind
        public var feed: String
        public var detail: String
    }

    /// A request to send a hub.
    public struct HubRequest: Sendable, Equatable {
        public enum Mode: String, Sendable { case subscribe, unsubscribe }
        public var mode: Mode
        public var feed: String
        public var hub: String
        public var topic: String
    }

    public let settings: Settings
    private let key: [UInt8]
    let table = Locked(Table())

    public init(settings: Settings) {
        self.settings = settings
        key = HMACDigest.randomBytes(32)
    }

    struct Subscription: Sendable {
        var hub: String
        var topic: String
        var state: State
        /// When a request was last sent its hub (nil: not yet).
        var asked: ContinuousClock.Instant?
    }

    enum State: Sendable, Equatable {
        /// Asked; the hub's verification has not come (or the request failed: asked again an hour later).
        case subscribing
        /// Verified for this long from `since`.
        case active(since: ContinuousClock.Instant, leaseSeconds: Int)
        case unsubscribing
    }

    struct Table: Sendable {
        var subscriptions: [String: Subscription] = [:]
        var pushes: [Push] = []
        var events: [Event] = []
        /// Feeds a delivery came for that no subscription of this process knows, with the hub
        /// and topic the delivery named (nil: it named none).
        var unknown: [String: (hub: String, topic: String)?] = [:]
        /// When such a feed was last acted on: at most once an hour.
        var lastUnknown: [String: ContinuousClock.Instant] = [:]
        /// The feeds some run lists (nil: not known yet): a delivery for a feed outside them
        /// that no subscription knows is answered 410 Gone, which ends it at the hub.
        var listed: Set<String>?
    }

    // MARK: Addresses and secrets

    public func callbackURL(for feed: String) -> String {
        settings.callback + "/" + Base64URL.encode(Array(feed.utf8))
    }

    /// The feed a callback path names (its last segment), or nil.
    static func feed(ofPath path: String) -> String? {
        guard let last = path.split(separator: "/").last, let bytes = Base64URL.decode(String(last)) else {
            return nil
        }
        return String(validating: bytes, as: UTF8.self)
    }

    func secret(feed: String, hub: String, topic: String) -> String {
        HMACDigest.sha256.authenticate(Array("\(feed)\n\(hub)\n\(topic)".utf8), key: key).map(HMACDigest.hex)
            .joined()
    }

    // MARK: The worker's side

    /// The feeds some run lists now (the worker's list and the state's `listedFeeds`).
    public func setListed(_ feeds: Set<String>) {
        table.withLock { $0.listed = feeds }
    }

    /// Whether a delivery, a feed to fetch, a request never sent or news for the log is waiting.
    public var hasWork: Bool {
        table.withLock { table in
            !table.pushes.isEmpty || !table.unknown.isEmpty || !table.events.isEmpty
                || table.subscriptions.values.contains { $0.asked == nil }
        }
    }

    /// The deliveries waiting, oldest first (a feed delivered twice: its latest only).
    public func takePushes() -> [Push] {
        let pushes = table.withLock { table in
            defer { table.pushes = [] }
            return table.pushes
        }
        var latest: [String: Push] = [:]
        var order: [String] = []
        for push in pushes {
            if latest.updateValue(push, forKey: push.feed) == nil { order.append(push.feed) }
        }
        return order.compactMap { latest[$0] }
    }

    /// Deliveries that could not be stored yet (another process holds their host), for later;
    /// a newer delivery of the same feed that came meanwhile wins.
    public func putBack(_ pushes: [Push]) {
        table.withLock { $0.pushes.insert(contentsOf: pushes, at: 0) }
    }

    public func takeEvents() -> [Event] {
        table.withLock { table in
            defer { table.events = [] }
            return table.events
        }
    }

    /// Whether a feed's pushes are verified to come: then it is polled only as a backstop.
    public func isPushed(_ feed: String) -> Bool {
        table.withLock { table in
            if case .active = table.subscriptions[feed]?.state { return true }
            return false
        }
    }

    /// What a fetch of `feed` said of its hubs: a feed newly advertising one (or another hub
    /// or topic) is subscribed by the next `due`.
    public func observe(feed: String, advert: WebSubAdvert?) {
        guard let advert, let hub = advert.hubs.first else { return }
        table.withLock { table in
            if let known = table.subscriptions[feed], advert.hubs.contains(known.hub), known.topic == advert.topic,
                known.state != .unsubscribing
            {
                return
            }
            table.subscriptions[feed] = Subscription(hub: hub, topic: advert.topic, state: .subscribing, asked: nil)
        }
    }

    /// The feeds deliveries came for that no subscription knows, listed or not, once an hour
    /// each: a listed one is to be fetched (and so subscribed again); an unlisted one's hub is
    /// asked to stop.
    /// - Returns: the listed ones, to fetch.
    public func takeUnknown(listed: (String) -> Bool) -> [String] {
        table.withLock { table in
            var fetch: [String] = []
            for (feed, named) in table.unknown {
                if listed(feed) {
                    fetch.append(feed)
                } else if let named {
                    table.subscriptions[feed] = Subscription(
                        hub: named.hub, topic: named.topic, state: .unsubscribing, asked: nil)
                }
            }
            table.unknown = [:]
            return fetch.sorted()
        }
    }

    /// The requests due now: new subscriptions, renewals (a tenth of the lease before it ends),
    /// tries again an hour after one failed or was not verified, and unsubscriptions of feeds
    /// no list names. Each is marked asked.
    /// - Parameter limit: at most this many (the others stay due for a later turn): a hub is
    ///   asked at the host spacing, and the worker claims nothing while it asks.
    public func due(listed: (String) -> Bool, now: ContinuousClock.Instant = .now, limit: Int = .max)
        -> [HubRequest]
    {
        table.withLock { table in
            var requests: [HubRequest] = []
            for (feed, var subscription) in table.subscriptions.sorted(by: { $0.key < $1.key }) {
                guard requests.count < limit else { break }
                var mode: HubRequest.Mode?
                if !listed(feed) && subscription.state != .unsubscribing {
                    subscription.state = .unsubscribing
                    subscription.asked = nil
                    table.subscriptions[feed] = subscription  // polled again from now
                }
                let stale = subscription.asked.map { now - $0 >= .seconds(3_600) } ?? true
                switch subscription.state {
                case .subscribing where stale: mode = .subscribe
                case .active(let since, let lease):
                    let renewal = since + .seconds(lease) - .seconds(max(lease / 10, 1))
                    if now >= renewal && (subscription.asked.map { $0 < renewal } ?? true) { mode = .subscribe }
                case .unsubscribing where stale: mode = .unsubscribe
                default: break
                }
                guard let mode else { continue }
                subscription.asked = now
                table.subscriptions[feed] = subscription
                requests.append(
                    HubRequest(mode: mode, feed: feed, hub: subscription.hub, topic: subscription.topic))
            }
            return requests
        }
    }

    /// Whether a hub named by `feed` may be at a private or loopback address: only when the
    /// feed's own address is one (an intranet feed naming its intranet hub). A feed is remote
    /// input: a public feed's hub link must not make the worker POST into its own network.
    public static func mayAskPrivateHub(forFeed feed: String) -> Bool {
        guard let host = URLComponents(string: feed)?.host else { return false }
        let bare = host.hasPrefix("[") ? host : (host.contains(":") ? "[\(host)]" : host)
        return AddressPolicy.publicOnly.refusal(forHost: bare) != nil
    }

    /// Sends each request (a form POST to its hub; the hub verifies it by a GET to the callback).
    /// - Parameters:
    ///   - client: the worker's own (its address policy), for a feed that is itself at a
    ///     private address (`mayAskPrivateHub`);
    ///   - publicClient: the same refusing every address but a globally reachable one, for
    ///     every other feed's hub.
    /// - Returns: a sentence for each that failed (it is tried again an hour later).
    public func send(_ requests: [HubRequest], client: HTTPClient, publicClient: HTTPClient) async -> [String] {
        await withTaskGroup(of: String?.self) { group in
            for request in requests {
                let client = Self.mayAskPrivateHub(forFeed: request.feed) ? client : publicClient
                group.addTask {
                    var fields: [(name: String, value: String)] = [
                        ("hub.mode", request.mode.rawValue), ("hub.topic", request.topic),
                        ("hub.callback", self.callbackURL(for: request.feed)),
                    ]
                    if request.mode == .subscribe {
                        fields.append(
                            ("hub.secret", self.secret(feed: request.feed, hub: request.hub, topic: request.topic)))
                        fields.append(("hub.lease_seconds", String(self.settings.leaseSeconds)))
                    }
                    var post = FetchRequest(url: request.hub)
                    post.formBody = FetchRequest.form(fields)
                    do throws(FetchError) {
                        let response = try await client.fetch(post)
                        guard (200..<300).contains(response.status) else {
                            return "\(request.feed): the hub \(request.hub) refused to \(request.mode.rawValue) "
                                + "(HTTP \(response.status))"
                        }
                        return nil
                    } catch {
                        return "\(request.feed): the hub \(request.hub) was not asked to \(request.mode.rawValue): "
                            + error.message
                    }
                }
            }
            var failures: [String] = []
            for await failure in group { if let failure { failures.append(failure) } }
            return failures.sorted()
        }
    }

    // MARK: The callback's side

    /// The answer to one request to the callback.
    func answer(_ request: CallbackRequest, now: ContinuousClock.Instant = .now) -> CallbackAnswer {
        guard let feed = Self.feed(ofPath: request.path) else { return CallbackAnswer(status: 404) }
        switch request.method {
        case "GET": return verify(feed: feed, query: request.query, now: now)
        case "POST": return deliver(feed: feed, request: request)
        default: return CallbackAnswer(status: 405)
        }
    }

    /// A hub's verification of intent (section 5.3): confirmed, by echoing the challenge, only
    /// for what this process asked.
    private func verify(feed: String, query: [String: String], now: ContinuousClock.Instant) -> CallbackAnswer {
        guard let mode = query["hub.mode"], let topic = query["hub.topic"] else { return CallbackAnswer(status: 400) }
        return table.withLock { table in
            guard var subscription = table.subscriptions[feed], subscription.topic == topic else {
                return CallbackAnswer(status: 404)
            }
            switch (mode, subscription.state) {
            case ("subscribe", .subscribing), ("subscribe", .active):
                guard let challenge = query["hub.challenge"], !challenge.isEmpty else {
                    return CallbackAnswer(status: 400)
                }
                let lease = query["hub.lease_seconds"].flatMap(Int.init).map { max($0, 1) } ?? settings.leaseSeconds
                subscription.state = .active(since: now, leaseSeconds: lease)
                table.subscriptions[feed] = subscription
                table.events.append(Event(kind: .verified, feed: feed, detail: "\(subscription.hub), \(lease) s"))
                return CallbackAnswer(status: 200, body: challenge)
            case ("unsubscribe", .unsubscribing):
                guard let challenge = query["hub.challenge"], !challenge.isEmpty else {
                    return CallbackAnswer(status: 400)
                }
                table.subscriptions[feed] = nil
                table.events.append(Event(kind: .unsubscribed, feed: feed, detail: subscription.hub))
                return CallbackAnswer(status: 200, body: challenge)
            case ("denied", _):
                table.subscriptions[feed] = nil
                table.events.append(
                    Event(kind: .denied, feed: feed, detail: query["hub.reason"] ?? "the hub gave no reason"))
                return CallbackAnswer(status: 200)
            default:
                return CallbackAnswer(status: 404)
            }
        }
    }

    /// A delivery (section 7, 8): kept only when its signature is the subscription's.
    /// Answered 202 whether kept or not, as the Recommendation asks of a bad signature; 410 Gone
    /// for a feed this process is leaving or that no list names.
    private func deliver(feed: String, request: CallbackRequest) -> CallbackAnswer {
        let named = request.headers["link"].map { link in
            (hub: WebLink.targets(link, relation: "hub").first, topic: WebLink.targets(link, relation: "self").first)
        }
        return table.withLock { table -> CallbackAnswer in
            let known = table.subscriptions[feed]
            guard let subscription = known, subscription.state != .unsubscribing else {
                // A feed leaving: 410 Gone, which WebSub's hubs take as the end of the subscription.
                if known != nil || table.listed.map({ !$0.contains(feed) }) == true {
                    table.events.append(
                        Event(
                            kind: .gone, feed: feed,
                            detail: "a delivery for a feed no list names: answered 410 Gone (the hub ends it)"))
                    return CallbackAnswer(status: 410)
                }
                let last = table.lastUnknown[feed]
                if last.map({ ContinuousClock.now - $0 >= .seconds(3_600) }) ?? true {
                    table.lastUnknown[feed] = .now
                    if let hub = named?.hub, let topic = named?.topic {
                        table.unknown[feed] = (hub, topic)
                    } else {
                        table.unknown[feed] = .some(nil)
                    }
                    table.events.append(
                        Event(kind: .unknown, feed: feed, detail: "a delivery for no subscription of this process"))
                }
                return CallbackAnswer(status: 202)
            }
            let secret = Array(secret(feed: feed, hub: subscription.hub, topic: subscription.topic).utf8)
            let signature = request.headers["x-hub-signature"] ?? ""
            let parts = signature.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let method = HMACDigest(rawValue: parts[0].lowercased()),
                method.verify(parts[1], message: request.body, key: secret)
            else {
                table.events.append(
                    Event(
                        kind: .badSignature, feed: feed,
                        detail: signature.isEmpty ? "no X-Hub-Signature" : "X-Hub-Signature does not match"))
                return CallbackAnswer(status: 202)
            }
            table.pushes.append(
                Push(
                    feed: feed, body: request.body, contentType: request.headers["content-type"],
                    link: request.headers["link"], received: .now))
            return CallbackAnswer(status: 202)
        }
    }
}
