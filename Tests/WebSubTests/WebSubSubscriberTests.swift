import Basics
import FeedFetch
import Glibc
import RequestSigning
import Testing

@testable import WebSub

/// The subscriber's rules at the callback, without a network: what it confirms, what it keeps.
@Suite struct WebSubSubscriberTests {
    let feed = "https://blog.example/feed.atom"
    let hub = "https://hub.example/"

    func subscriber() -> WebSubSubscriber {
        WebSubSubscriber(settings: .init(callback: "https://planet.example/websub/"))
    }

    func get(_ s: WebSubSubscriber, _ fields: [String: String], feed: String? = nil) -> CallbackAnswer {
        let path = URLPath.of(s.callbackURL(for: feed ?? self.feed))
        return s.answer(CallbackRequest(method: "GET", path: path, query: fields, headers: [:], body: []))
    }

    func post(_ s: WebSubSubscriber, _ body: String, signature: String?, link: String? = nil) -> CallbackAnswer {
        var headers = ["content-type": "application/atom+xml"]
        headers["x-hub-signature"] = signature
        headers["link"] = link
        return s.answer(
            CallbackRequest(
                method: "POST", path: URLPath.of(s.callbackURL(for: feed)), query: [:], headers: headers,
                body: Array(body.utf8)))
    }

    @Test func theCallbackNamesItsFeed() {
        let s = subscriber()
        #expect(s.callbackURL(for: feed).hasPrefix("https://planet.example/websub/"))
        #expect(WebSubSubscriber.feed(ofPath: URLPath.of(s.callbackURL(for: feed))) == feed)
        #expect(WebSubSubscriber.feed(ofPath: "/websub/not+base64") == nil)
    }

    @Test func onlyWhatItAskedIsConfirmed() {
        let s = subscriber()
        // Nothing asked: neither a subscription nor an unsubscription is confirmed.
        #expect(get(s, ["hub.mode": "subscribe", "hub.topic": feed, "hub.challenge": "c"]).status == 404)
        s.observe(feed: feed, advert: WebSubAdvert(hubs: [hub], topic: feed))
        let asked = s.due(listed: { _ in true })
        #expect(asked == [.init(mode: .subscribe, feed: feed, hub: hub, topic: feed)])
        #expect(s.due(listed: { _ in true }).isEmpty, "asked once, not at every turn")
        // Another topic, or an unsubscription it did not ask for: not confirmed.
        #expect(get(s, ["hub.mode": "subscribe", "hub.topic": "https://other/", "hub.challenge": "c"]).status == 404)
        #expect(get(s, ["hub.mode": "unsubscribe", "hub.topic": feed, "hub.challenge": "c"]).status == 404)
        let answer = get(
            s, ["hub.mode": "subscribe", "hub.topic": feed, "hub.challenge": "a challenge", "hub.lease_seconds": "600"])
        #expect(answer.status == 200 && answer.body == "a challenge")
        #expect(s.isPushed(feed))
        #expect(s.takeEvents().map(\.kind) == [.verified])
    }

    @Test func aDeliveryIsKeptOnlyWithItsSubscriptionsSignature() {
        let s = subscriber()
        s.observe(feed: feed, advert: WebSubAdvert(hubs: [hub], topic: feed))
        _ = s.due(listed: { _ in true })
        let secret = Array(s.secret(feed: feed, hub: hub, topic: feed).utf8)
        let body = "<feed/>"
        for method in HMACDigest.allCases {
            let hex = method.authenticate(Array(body.utf8), key: secret).map(HMACDigest.hex).joined()
            #expect(post(s, body, signature: "\(method.rawValue)=\(hex)").status == 202)
        }
        #expect(s.takePushes().map(\.feed) == [feed], "four deliveries of one feed: its latest")
        #expect(post(s, body, signature: "sha256=" + String(repeating: "0", count: 64)).status == 202)
        #expect(post(s, body, signature: nil).status == 202)
        #expect(post(s, body, signature: "md5=00").status == 202)
        #expect(s.takePushes().isEmpty)
        #expect(s.takeEvents().map(\.kind) == [.badSignature, .badSignature, .badSignature])
    }

    @Test func aDeliveryForNoKnownSubscriptionIsFetchedIfListedElseUnsubscribed() {
        let listed = subscriber()
        #expect(post(listed, "<feed/>", signature: "sha1=00").status == 202)
        #expect(listed.takePushes().isEmpty)
        #expect(listed.takeUnknown(listed: { _ in true }) == [feed])
        #expect(post(listed, "<feed/>", signature: "sha1=00").status == 202)
        #expect(listed.takeUnknown(listed: { _ in true }).isEmpty, "once an hour")

        let unlisted = subscriber()
        _ = post(unlisted, "<feed/>", signature: "sha1=00", link: "<\(hub)>; rel=\"hub\", <\(feed)>; rel=\"self\"")
        #expect(unlisted.takeUnknown(listed: { _ in false }).isEmpty)
        #expect(unlisted.due(listed: { _ in false }) == [.init(mode: .unsubscribe, feed: feed, hub: hub, topic: feed)])
        let answer = get(unlisted, ["hub.mode": "unsubscribe", "hub.topic": feed, "hub.challenge": "bye"])
        #expect(answer.status == 200 && answer.body == "bye")

        // Once the lists are known, a delivery for a feed none names is answered 410 Gone at once.
        let known = subscriber()
        known.setListed(["https://other.example/feed"])
        #expect(post(known, "<feed/>", signature: "sha1=00").status == 410)
        #expect(known.takeEvents().map(\.kind) == [.gone])
        known.setListed([feed])
        #expect(post(known, "<feed/>", signature: "sha1=00").status == 202)
        #expect(known.takeUnknown(listed: { _ in true }) == [feed])
    }

    @Test func aFeedNoListNamesIsUnsubscribedAndALeaseIsRenewed() {
        let s = subscriber()
        s.observe(feed: feed, advert: WebSubAdvert(hubs: [hub], topic: feed))
        let start = ContinuousClock.now
        _ = s.due(listed: { _ in true }, now: start)
        _ = s.answer(
            CallbackRequest(
                method: "GET", path: URLPath.of(s.callbackURL(for: feed)),
                query: ["hub.mode": "subscribe", "hub.topic": feed, "hub.challenge": "c", "hub.lease_seconds": "1000"],
                headers: [:], body: []), now: start)
        #expect(s.due(listed: { _ in true }, now: start + .seconds(800)).isEmpty)
        #expect(s.due(listed: { _ in true }, now: start + .seconds(901)).map(\.mode) == [.subscribe])
        #expect(s.due(listed: { _ in false }, now: start + .seconds(902)).map(\.mode) == [.unsubscribe])
        #expect(!s.isPushed(feed))
    }

    @Test func aTurnAsksAFewHubsAndLeavesTheRestDue() {
        let s = subscriber()
        for index in 0..<10 { s.observe(feed: "\(feed)?\(index)", advert: WebSubAdvert(hubs: [hub], topic: feed)) }
        #expect(s.due(listed: { _ in true }, limit: 4).count == 4)
        #expect(s.due(listed: { _ in true }, limit: 4).count == 4)
        #expect(s.due(listed: { _ in true }, limit: 4).count == 2)
        #expect(s.due(listed: { _ in true }, limit: 4).isEmpty)
    }

    @Test func onlyAFeedAtAPrivateAddressMayNameAPrivateHub() {
        #expect(!WebSubSubscriber.mayAskPrivateHub(forFeed: "https://blog.example/feed.atom"))
        #expect(!WebSubSubscriber.mayAskPrivateHub(forFeed: "http://93.184.216.34/feed"))
        #expect(!WebSubSubscriber.mayAskPrivateHub(forFeed: "not a URL"))
        #expect(WebSubSubscriber.mayAskPrivateHub(forFeed: "http://127.0.0.1:8080/feed"))
        #expect(WebSubSubscriber.mayAskPrivateHub(forFeed: "http://10.1.2.3/feed"))
        #expect(WebSubSubscriber.mayAskPrivateHub(forFeed: "http://localhost/feed"))
        #expect(WebSubSubscriber.mayAskPrivateHub(forFeed: "http://[::1]:80/feed"))
    }

    @Test func linkHeadersAreReadAsRFC8288Says() {
        let field = "<https://hub.example/a>; rel=\"hub\", <https://x/,y>; rel=\"alternate self\"; title=\"a, b\""
        #expect(WebLink.targets(field, relation: "hub") == ["https://hub.example/a"])
        #expect(WebLink.targets(field, relation: "SELF") == ["https://x/,y"])
        #expect(WebLink.targets("<broken; rel=hub", relation: "hub").isEmpty)
        #expect(WebLink.targets("<a>; rel=hub, <b>; rel=HUB", relation: "hub") == ["a", "b"])
    }

    @Test func theLinkHeaderIsReadBeforeTheDocument() {
        let header = WebSubAdvert.discover(
            header: (["https://h1/"], "https://topic/"), document: (["https://h2/"], "https://doc/"),
            fetched: "https://f/")
        #expect(header == WebSubAdvert(hubs: ["https://h1/"], topic: "https://topic/"))
        let document = WebSubAdvert.discover(
            header: ([], nil), document: (["https://h2/", "https://h2/", "ftp://x/"], nil), fetched: "https://f/")
        #expect(document == WebSubAdvert(hubs: ["https://h2/"], topic: "https://f/"))
        #expect(WebSubAdvert.discover(header: ([], "https://t/"), document: ([], nil), fetched: "https://f/") == nil)
    }
}

/// The path of an absolute URL, as the callback's request line gives it.
enum URLPath {
    static func of(_ url: String) -> String {
        let afterScheme = url.components(separatedBy: "://").last ?? url
        return afterScheme.firstIndex(of: "/").map { String(afterScheme[$0...]) } ?? "/"
    }
}

/// The callback over a real socket: a client that sends nothing holds one connection's thread,
/// not the callback.
@Suite struct CallbackListenerTests {
    @Test func aSilentClientDoesNotHoldUpTheNextRequest() throws {
        let subscriber = WebSubSubscriber(settings: .init(callback: "http://127.0.0.1/websub"))
        let listener = try CallbackListener(listening: "127.0.0.1:0", subscriber: subscriber)
        let silent = try Self.connect(to: listener.address)
        defer { close(silent) }
        // A second client, on this thread (not the pool's timing): its answer must come while the
        // first sends nothing, within 8 s (served one at a time, it would wait the first's 10 s).
        let asking = try Self.connect(to: listener.address)
        defer { close(asking) }
        var limit = timeval(tv_sec: 8, tv_usec: 0)
        setsockopt(asking, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let path = URLPath.of(subscriber.callbackURL(for: "https://blog.example/feed.atom"))
        let request = Array("GET \(path)?hub.mode=subscribe&hub.topic=x&hub.challenge=c HTTP/1.1\r\n\r\n".utf8)
        #expect(send(asking, request, request.count, 0) == request.count)
        var answer = [UInt8](repeating: 0, count: 512)
        let count = recv(asking, &answer, answer.count, 0)
        try #require(count > 0, "no answer within 8 s while a silent client held a connection")
        let text = String(decoding: answer[..<count], as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 404 "), "nothing was asked: not confirmed: \(text)")
    }

    /// A TCP connection to an IPv4 `HOST:PORT`, as a descriptor.
    static func connect(to address: String) throws -> Int32 {
        let (host, port) = try ListeningSocket.split(address)
        var peer = sockaddr_in()
        peer.sin_family = sa_family_t(AF_INET)
        peer.sin_port = in_port_t(UInt16(port)!).bigEndian
        inet_pton(AF_INET, host, &peer.sin_addr)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let connected = withUnsafePointer(to: &peer) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(connected == 0, "cannot connect to \(address)")
        return descriptor
    }
}
