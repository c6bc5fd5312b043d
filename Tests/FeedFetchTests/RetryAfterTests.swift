import FeedModel
import Testing

@testable import FeedFetch

@Suite struct RetryAfterTests {
    static let instant = Timestamp(secondsSince1970: 784_111_777)  // 1994-11-06T08:49:37Z

    @Test(arguments: [
        ("120", RetryAfter.delay(seconds: 120)),
        (" 0 ", .delay(seconds: 0)),
        ("99999999999999999999", .delay(seconds: Int(Int32.max))),
        ("Sun, 06 Nov 1994 08:49:37 GMT", .date(instant)),
        ("Sunday, 06-Nov-94 08:49:37 GMT", .date(instant)),
        ("Sun Nov  6 08:49:37 1994", .date(instant)),
    ])
    func parsesBothForms(_ text: String, _ expected: RetryAfter) {
        #expect(RetryAfter(parsing: text) == expected)
    }

    @Test(arguments: ["", "soon", "-5", "1.5"])
    func refusesAnythingElse(_ text: String) {
        #expect(RetryAfter(parsing: text) == nil)
    }

    @Test func delayIsRelativeDateIsAbsolute() {
        let now = Timestamp(secondsSince1970: 1_000_000_000)
        #expect(RetryAfter.delay(seconds: 60).notBefore(now: now) == Timestamp(secondsSince1970: 1_000_000_060))
        #expect(RetryAfter.date(Self.instant).notBefore(now: now) == Self.instant)
        #expect(RetryAfter.date(Self.instant).seconds(from: now) == 0)
        #expect(RetryAfter.delay(seconds: 60).seconds(from: now) == 60)
    }

    /// What is stored and what messages say agree: at most a week, whichever form.
    @Test func aWaitIsHonouredUpToAWeek() {
        let now = Timestamp(secondsSince1970: 1_000_000_000)
        let week = 7 * 86_400
        #expect(RetryAfter.delay(seconds: 30 * 86_400).seconds(from: now) == week)
        let farDate = RetryAfter.date(Timestamp(secondsSince1970: 2_000_000_000))
        #expect(farDate.notBefore(now: now) == Timestamp(secondsSince1970: 1_000_000_000 + Int64(week)))
        #expect(RetryAfter.delay(seconds: week - 1).seconds(from: now) == week - 1)
    }
}

@Suite struct CacheDirectiveTests {
    @Test func tokensAndQuotedStrings() {
        let directives = CacheDirective.parse(#"Max-Age=60 , ,private="a, \"b\"", no-cache,x=y"#)
        #expect(
            directives == [
                CacheDirective(name: "max-age", argument: "60"),
                CacheDirective(name: "private", argument: #"a, "b""#),
                CacheDirective(name: "no-cache", argument: nil),
                CacheDirective(name: "x", argument: "y"),
            ])
    }
}
