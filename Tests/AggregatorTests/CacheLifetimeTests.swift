import FeedModel
import Testing

@testable import Aggregator
@testable import FeedFetch

/// How long a response keeps a feed from being fetched again (RFC 9111),
/// and when a Retry-After lets it be asked again.
@Suite struct CacheLifetimeTests {
    static let served = "Tue, 01 Dec 2026 12:00:00 GMT"

    static func headers(_ fields: [(String, String)]) -> ResponseHeaders {
        var headers = ResponseHeaders()
        for (name, value) in fields { headers.record(name: name, value: value) }
        return headers
    }

    static func lifetime(cacheControl: String?, expires: String? = nil, date: String? = served) -> Int? {
        var fields: [(String, String)] = []
        if let cacheControl { fields.append(("Cache-Control", cacheControl)) }
        if let expires { fields.append(("Expires", expires)) }
        if let date { fields.append(("Date", date)) }
        return Plan.cacheLifetime(headers(fields))
    }

    struct Case: Sendable, CustomStringConvertible {
        var cacheControl: String?
        var expires: String?
        var lifetime: Int?
        var description: String { "\(cacheControl ?? "-") / \(expires ?? "-")" }
    }

    @Test(arguments: [
        Case(cacheControl: "max-age=600", lifetime: 600),
        Case(cacheControl: "Public, MAX-AGE=600", lifetime: 600),
        Case(cacheControl: #"max-age="600""#, lifetime: 600),
        // Honoured past a day (two days, three), up to a week.
        Case(cacheControl: "max-age=90000", lifetime: 90_000),
        Case(cacheControl: "max-age=172800", lifetime: 172_800),
        Case(cacheControl: "max-age=9999999", lifetime: 604_800),
        Case(cacheControl: "max-age=0", lifetime: 0),
        Case(cacheControl: "max-age=soon", lifetime: 0),
        Case(cacheControl: "no-cache", lifetime: nil),
        Case(cacheControl: "max-age=600, No-Cache", lifetime: nil),
        Case(cacheControl: "max-age=600,no-store", lifetime: nil),
        // Directives are tokens, not substrings.
        Case(cacheControl: "no-cache-ext=1, max-age=600", lifetime: 600),
        Case(cacheControl: #"private="no-cache", max-age=600"#, lifetime: 600),
        Case(cacheControl: #"ext="a, no-store", max-age=600"#, lifetime: 600),
        // no-cache naming fields leaves the body reusable.
        Case(cacheControl: #"no-cache="Set-Cookie", max-age=600"#, lifetime: 600),
        // s-maxage is for shared caches.
        Case(cacheControl: "s-maxage=600", lifetime: nil),
        Case(cacheControl: "s-maxage=60", expires: "Tue, 01 Dec 2026 13:00:00 GMT", lifetime: 3600),
        // Expires minus Date when there is no max-age; max-age wins.
        Case(cacheControl: nil, expires: "Tue, 01 Dec 2026 12:30:00 GMT", lifetime: 1800),
        Case(cacheControl: "public", expires: "Tue, 01 Dec 2026 12:30:00 GMT", lifetime: 1800),
        Case(cacheControl: "max-age=60", expires: "Tue, 01 Dec 2026 12:30:00 GMT", lifetime: 60),
        Case(cacheControl: nil, expires: "Wed, 02 Dec 2026 18:00:00 GMT", lifetime: 108_000),
        Case(cacheControl: nil, expires: "Fri, 04 Dec 2026 12:00:00 GMT", lifetime: 259_200),
        Case(cacheControl: nil, expires: "Tue, 01 Dec 2026 11:00:00 GMT", lifetime: 0),
        // An invalid Expires means already expired.
        Case(cacheControl: nil, expires: "0", lifetime: 0),
        Case(cacheControl: nil, expires: "-1", lifetime: 0),
        Case(cacheControl: "no-cache", expires: "Tue, 01 Dec 2026 12:30:00 GMT", lifetime: nil),
        Case(cacheControl: nil, expires: nil, lifetime: nil),
    ])
    func lifetimeFollowsTheHeaders(_ c: Case) {
        #expect(Self.lifetime(cacheControl: c.cacheControl, expires: c.expires) == c.lifetime)
    }

    /// Expires and Date are both the server's clock: however far ours is off, the difference holds.
    @Test func expiresCountsFromTheServersDate() {
        let lifetime = Self.lifetime(
            cacheControl: nil, expires: "Thu, 01 Jan 2015 00:10:00 GMT", date: "Thu, 01 Jan 2015 00:00:00 GMT")
        #expect(lifetime == 600)
    }

    @Test func withoutDateExpiresCountsFromArrival() {
        let headers = Self.headers([("Expires", "Tue, 01 Dec 2026 12:30:00 GMT")])
        let arrival = Int64(1_796_126_400)  // 2026-12-01T12:00:00Z
        #expect(Plan.cacheLifetime(headers, receivedAt: arrival) == 1800)
    }

    @Test func cacheControlLinesAreJoined() {
        let headers = Self.headers([("Cache-Control", "max-age=600"), ("cache-control", "no-store")])
        #expect(Plan.cacheLifetime(headers) == nil)
    }
}

@Suite struct RetryAfterTimeTests {
    /// The run's `--now`, far from the wall clock.
    static let now = Timestamp(secondsSince1970: 1_706_745_600)  // 2024-02-01T00:00:00Z

    static func stored(_ retryAfter: RetryAfter?) -> Timestamp? {
        let failure = Failure(message: "HTTP 503", status: 503, gone: false, retryAfter: retryAfter)
        return Outcome.failed(failure).update(url: "http://example.org/feed", now: now)?.notBefore
    }

    /// An HTTP date is an instant: stored as it is, whatever the run's time.
    @Test func dateIsStoredAsTheInstant() throws {
        let retryAfter = try #require(RetryAfter(parsing: "Thu, 01 Feb 2024 06:00:00 GMT"))
        #expect(Self.stored(retryAfter) == Timestamp(secondsSince1970: 1_706_745_600 + 6 * 3600))
    }

    /// Delta seconds count from the run's time.
    @Test func delayCountsFromTheRunsTime() throws {
        let retryAfter = try #require(RetryAfter(parsing: "3600"))
        #expect(Self.stored(retryAfter) == Timestamp(secondsSince1970: 1_706_745_600 + 3600))
    }

    /// A Retry-After far away (a date in 9999, a huge delay) is capped at a week.
    @Test(arguments: ["Fri, 31 Dec 9999 23:59:59 GMT", "999999999999"])
    func farRetryAfterIsCappedAtAWeek(_ value: String) throws {
        let retryAfter = try #require(RetryAfter(parsing: value))
        #expect(Self.stored(retryAfter) == Timestamp(secondsSince1970: 1_706_745_600 + 7 * 86_400))
    }

    @Test func impossibleYearsAreNoDate() {
        #expect(RetryAfter(parsing: "Fri, 31 Dec 99999999999 23:59:59 GMT") == nil)
    }

    @Test func noRetryAfterStoresNoTime() {
        #expect(Self.stored(nil) == nil)
    }

    @Test func cacheLifetimeCountsFromTheRunsTime() {
        let outcome = Outcome.notModified(304, notBefore: 600)
        #expect(outcome.update(url: "u", now: Self.now)?.notBefore == Timestamp(secondsSince1970: 1_706_745_600 + 600))
    }
}
