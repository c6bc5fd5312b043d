import EntryFilters
import FeedFetch
import FeedModel
import FeedParse
import FeedState
import Foundation
import Subscriptions
import TimelineMerge
import WebSub

/// What a task-group child does for one subscription: decide whether to
/// fetch (politeness), fetch conditionally, and parse. Plain values only.
struct Plan: Sendable {
    var subscription: Subscription
    var record: FeedRecord?
    var skip: FeedReport.Status?
    /// Not fetched, whatever is due: served from the state as its last stored outcome left it.
    var servedOnly = false
    var request: FetchRequest
    /// What reading the sources already read for it (standard input).
    var alreadyRead: FetchResponse?
    /// The run's store keeps entries: the child prepares their stored form.
    var keepsEntries: Bool
    /// The run's time (an entry's date of last resort, for its filters).
    var now: Timestamp

    /// - Parameters:
    ///   - serveOnly: not fetched: served from the state (`feedmerge render`;
    ///     in a shared state, a feed whose host another process holds).
    ///   - due: when the feed is next due by the run's schedule (nil: fetched
    ///     now, `--fetch-all`; a server's Retry-After or cache lifetime still holds).
    ///   - hostNotBefore: its host asked everyone to wait (`FeedSchedule.hostWaits`).
    init(
        subscription: Subscription, record: FeedRecord?, rules: TimelineRules, force: Bool,
        alreadyRead: FetchResponse? = nil, keepsEntries: Bool = false, serveOnly: Bool = false, due: Timestamp? = nil,
        hostNotBefore: Timestamp? = nil
    ) {
        self.subscription = subscription
        self.record = record
        self.alreadyRead = alreadyRead
        self.keepsEntries = keepsEntries
        now = rules.now
        // A feed's new address came from a redirect, never from the operator.
        request = FetchRequest(
            url: record?.movedTo ?? subscription.url, etag: record?.etag, lastModified: record?.lastModified,
            mayReadLocalFile: subscription.mayReadLocalFile && record?.movedTo == nil)
        if serveOnly {
            servedOnly = true
            // As its last fetch left it.
            skip = record?.gone == true ? .gone : (record?.consecutiveFailures ?? 0) > 0 ? .failed : .notModified
        } else if !force, alreadyRead == nil, let record {
            if record.gone {
                skip = .gone
            } else if let notBefore = record.notBefore, notBefore > rules.now {
                skip = .deferred
            } else if let hostNotBefore, hostNotBefore > rules.now {
                skip = .deferred  // its host asked everyone to wait
            } else if let due, due > rules.now {
                skip = .deferred  // not due yet: served from the state
            }
        } else if alreadyRead == nil, let hostNotBefore, hostNotBefore > rules.now {
            skip = .deferred  // a feed not asked yet whose host asked everyone to wait
        }
    }

    /// When a feed the state knows is next due, by the run's schedule.
    static func dueCheck(
        record: FeedRecord?, stored: StoredDates?, state: StateOptions, now: Timestamp, hostNotBefore: Timestamp?
    ) -> Timestamp? {
        guard let record else { return nil }  // never fetched: due
        return state.schedule.nextCheck(
            record: record, entriesStored: stored?.count ?? 0, keepDays: state.keepDays, now: now,
            hostNotBefore: hostNotBefore)
    }

    func run(client: HTTPClient) async -> Outcome {
        if let skip { return .skipped(skip) }
        let response: FetchResponse
        var cut: String?
        do {
            if let alreadyRead { response = alreadyRead } else { response = try await client.fetch(request) }
        } catch let error where error.partialResponse != nil {
            // Over the size cap: the entries that arrived whole are kept, with a warning.
            response = error.partialResponse!
            cut = "\(error.message): the document was cut there"
        } catch let error where error.code == .withdrawn {
            return .withdrawn(error.message)
        } catch let error where error.code == .hostThrottled {
            return .skipped(.deferred)  // its host asked to be left alone: served from the state
        } catch {
            var message = error.code == .httpStatus ? "HTTP \(error.status ?? 0)" : error.message
            if let challenge = error.botChallenge { message = Self.blocked(challenge) }
            return .failed(
                Failure(
                    message: message, status: error.status, gone: error.status == 410,
                    retryAfter: error.retryAfter))
        }
        let notBefore = Self.cacheLifetime(response.headers)
        if response.isNotModified {
            // A permanent redirect to an address whose copy is the one stored is a move all the same.
            let moved = response.permanentlyRedirected ? response.finalURL : nil
            // Validators a 304 carries replace the stored ones (RFC 9111, 4.3.4), byte for byte.
            return .notModified(
                response.status, notBefore: notBefore, movedTo: moved, etag: response.headers.etag,
                lastModified: response.headers.lastModified)
        }
        if subscription.mayBeList && SubscriptionList.isOPML(response.body) {
            return .subscriptionList(response.body)
        }
        return await read(response, cut: cut, notBefore: notBefore, client: client)
    }

    /// The feed in a response; an HTML page that advertises a feed is
    /// followed to it once (autodiscovery), and the feed's address is then
    /// kept as the subscription's new one (as after a permanent redirect).
    private func read(
        _ response: FetchResponse, cut: String?, notBefore: Int?, client: HTTPClient, discovered: String? = nil
    ) async -> Outcome {
        let base = response.finalURL.contains("://") ? response.finalURL : nil
        var feed: ParsedFeed
        do {
            feed = try FeedParser.parse(
                response.body, options: .init(url: base, contentType: response.headers.contentType))
            if let cut { feed.warnings.insert(cut, at: 0) }
            subscription.filters.apply(
                to: &feed, feedURL: response.finalURL, properties: filterProperties(response), now: now)
        } catch {
            if discovered == nil, let base,
                FeedDiscovery.isHTML(response.body, contentType: response.headers.contentType),
                let advertised = FeedDiscovery.best(FeedDiscovery.advertisedFeeds(in: response.body, page: base)),
                advertised.url != base, advertised.url.hasPrefix("http://") || advertised.url.hasPrefix("https://")
            {
                return await follow(advertised.url, from: base, client: client)
            }
            if let marker = BotChallenge.challengeMarker(in: response.body) {
                // An HTML challenge where the feed was expected: blocked, not broken.
                let challenge = "HTTP \(response.status), a challenge page (\(marker))"
                return .failed(
                    Failure(message: Self.blocked(challenge), status: response.status, gone: false, retryAfter: nil))
            }
            let message = cut.map { "\($0); \(error.message)" } ?? error.message
            return .failed(Failure(message: message, status: response.status, gone: false, retryAfter: nil))
        }
        let moved = discovered ?? (response.permanentlyRedirected ? response.finalURL : nil)
        let source = FeedSource(
            metadata: feed.metadata, subscription: subscription,
            feedURL: moved ?? Aggregator.absoluteURL(record?.movedTo ?? subscription.url))
        return .fetched(
            Fetched(
                feed: feed, source: source, prepared: keepsEntries ? PreparedEntries(feed.entries) : nil,
                bytes: response.body.count, status: response.status,
                // A cut document's validators are not kept: a 304 would serve the cut entries for good.
                etag: cut == nil ? response.headers.etag : nil,
                lastModified: cut == nil ? response.headers.lastModified : nil,
                movedTo: moved, notBefore: notBefore, websub: Self.websub(response, feed.metadata),
                notice: cut ?? discovered.map { "an HTML page: followed the feed it advertises, \($0)" }))
    }

    /// The WebSub hubs and topic a response advertises: its `Link` header, else the document.
    static func websub(_ response: FetchResponse, _ metadata: FeedMetadata) -> WebSubAdvert? {
        let base = response.finalURL
        func targets(_ relation: String) -> [String] {
            (response.headers.link.map { WebLink.targets($0, relation: relation) } ?? [])
                .map { URLReference.resolve($0, against: base) }
        }
        return WebSubAdvert.discover(
            header: (targets("hub"), targets("self").first), document: (metadata.hubs, metadata.selfLink),
            fetched: base)
    }

    /// What Venus's spider records of a subscription before its filters
    /// run (its `planet_*` values): the subscription's options and name,
    /// the fetch's status, address and validators.
    private func filterProperties(_ response: FetchResponse) -> [String: String] {
        var properties = subscription.properties
        if properties["name"] == nil, let title = subscription.title { properties["name"] = title }
        properties["http_status"] = String(response.status)
        properties["http_location"] = response.finalURL
        if let etag = response.headers.etag { properties["http_etag"] = etag }
        if let lastModified = response.headers.lastModified { properties["http_last_modified"] = lastModified }
        return properties
    }

    /// A bot-protection block's reason, as stored and reported: the schedule
    /// tells a blocked feed by its prefix (`FeedSchedule.isBlocked`).
    static func blocked(_ evidence: String) -> String {
        "\(FeedSchedule.blockedPrefix) (\(evidence))"
    }

    /// Fetches the feed a page advertises, and reads it.
    private func follow(_ url: String, from page: String, client: HTTPClient) async -> Outcome {
        let response: FetchResponse
        do {
            response = try await client.fetch(FetchRequest(url: url))
        } catch let error where error.code == .withdrawn {
            return .withdrawn(error.message)
        } catch {
            let message = error.code == .httpStatus ? "HTTP \(error.status ?? 0)" : error.message
            return .failed(
                Failure(
                    message: "an HTML page; the feed it advertises, \(url), failed: \(message)", status: error.status,
                    gone: false, retryAfter: error.retryAfter))
        }
        let discovered = response.permanentlyRedirected || response.finalURL != url ? response.finalURL : url
        return await read(
            response, cut: nil, notBefore: Self.cacheLifetime(response.headers), client: client, discovered: discovered)
    }

    /// Seconds the response may be reused before it is fetched again: its
    /// freshness lifetime (`Cache-Control: max-age`, else `Expires` minus
    /// `Date`; none under `no-cache` or `no-store`), honoured up to a week
    /// (`RetryAfter.longestWait`), so a wrong header cannot silence a feed for good.
    /// - Parameter receivedAt: when the response arrived by the wall clock,
    ///   used only when the server sent no `Date`.
    static func cacheLifetime(_ headers: ResponseHeaders, receivedAt: Int64 = Int64(time(nil))) -> Int? {
        headers.freshnessLifetime(receivedAt: receivedAt).map { min($0, Int(RetryAfter.longestWait)) }
    }
}

struct Fetched: Sendable {
    var feed: ParsedFeed
    var source: FeedSource
    /// The entries' keys and stored forms, when the run's store keeps entries.
    var prepared: PreparedEntries?
    var bytes: Int
    var status: Int
    var etag: String?
    var lastModified: String?
    var movedTo: String?
    var notBefore: Int?
    /// The WebSub hubs it advertises.
    var websub: WebSubAdvert?
    /// What the user must hear of even without `--verbose` (a body cut at the size cap).
    var notice: String?
}

struct Failure: Sendable {
    var message: String
    var status: Int?
    var gone: Bool
    /// A delay counts from the run's time; a date is stored as it is.
    var retryAfter: RetryAfter?
}

enum Outcome: Sendable {
    case fetched(Fetched)
    /// The status, the cache lifetime, where a permanent redirect moved the
    /// feed, and the validators the 304 carried.
    case notModified(Int, notBefore: Int?, movedTo: String? = nil, etag: String? = nil, lastModified: String? = nil)
    case skipped(FeedReport.Status)
    case failed(Failure)
    /// A SOURCE of the command line that is an OPML document, not a feed.
    case subscriptionList([UInt8])
    /// Not fetched, or stopped mid-fetch: the process no longer holds the
    /// feed's host (`FetchError.Code.withdrawn`). Nothing is stored: the
    /// host's next holder fetches it.
    case withdrawn(String)

    /// The fetched feed moved out (the outcome is left `.skipped`); nil for
    /// any other outcome, which is left as it was.
    mutating func takeFetched() -> Fetched? {
        guard case .fetched = self else { return nil }
        guard case .fetched(let fetched) = consume self else { fatalError("checked above") }
        self = .skipped(.ok)
        return fetched
    }

    /// What to store; nil when nothing happened (a skipped feed).
    /// - Parameter restamping: what the dating policy decided of a fetched feed.
    func update(url: String, now: Timestamp, restamping: Bool = false) -> FeedUpdate? {
        func later(_ seconds: Int?) -> Timestamp? {
            seconds.map { Timestamp(secondsSince1970: now.secondsSince1970 + Int64($0)) }
        }
        switch self {
        case .fetched(let f):
            return FeedUpdate(
                url: url,
                outcome: .fetched(
                    entries: f.prepared ?? .notKept, etag: f.etag, lastModified: f.lastModified,
                    metadata: f.feed.metadata, restamping: restamping),
                status: f.status, movedTo: f.movedTo, notBefore: later(f.notBefore), now: now)
        case .notModified(let status, let notBefore, let movedTo, let etag, let lastModified):
            return FeedUpdate(
                url: url, outcome: .notModified(etag: etag, lastModified: lastModified), status: status,
                movedTo: movedTo, notBefore: later(notBefore),
                now: now)
        case .skipped, .subscriptionList, .withdrawn:
            return nil
        case .failed(let failure):
            return FeedUpdate(
                url: url, outcome: .failed(message: failure.message, gone: failure.gone), status: failure.status,
                movedTo: nil, notBefore: failure.retryAfter.map { $0.notBefore(now: now) },
                now: now)
        }
    }
}
