import FeedFetch
import FeedModel
import Foundation
import Testing

@testable import Aggregator

/// When a feed is next due, rule by rule (RSS 2.0's `ttl`, the Syndication
/// module, RFC 9110's Retry-After and RFC 9111's freshness as the record's
/// notBefore), and a month of a mixed population simulated.
@Suite struct FeedScheduleTests {
    let t0 = Timestamp(secondsSince1970: 1_780_000_000)
    var noJitter: FeedSchedule {
        var schedule = FeedSchedule()
        schedule.jitter = 0
        return schedule
    }

    func facts(_ change: (inout FeedSchedule.Facts) -> Void = { _ in }) -> FeedSchedule.Facts {
        var facts = FeedSchedule.Facts(url: "https://blog.example/feed", lastFetch: t0)
        change(&facts)
        return facts
    }

    func delay(_ facts: FeedSchedule.Facts, _ schedule: FeedSchedule? = nil) -> Int64? {
        (schedule ?? noJitter).nextCheck(facts).map { $0.secondsSince1970 - t0.secondsSince1970 }
    }

    @Test func neverFetchedIsDueAndGoneIsNever() {
        #expect(noJitter.isDue(FeedSchedule.Facts(url: "u", lastFetch: nil), now: t0))
        #expect(delay(facts { $0.gone = true }) == nil)
        #expect(!noJitter.isDue(facts { $0.gone = true }, now: Timestamp(secondsSince1970: Int64.max / 2)))
    }

    @Test func aWorkingFeedIsAskedAtAQuarterOfItsPostingIntervalWithinBounds() {
        // No history (seen for less than a day): hourly.
        #expect(delay(facts()) == 3_600)
        #expect(delay(facts { $0.collectedSince = Timestamp(secondsSince1970: t0.secondsSince1970 - 3_600) }) == 3_600)
        // Nothing posted in 30 days: daily.
        #expect(
            delay(facts { $0.collectedSince = Timestamp(secondsSince1970: t0.secondsSince1970 - 30 * 86_400) })
                == 86_400)
        // 30 entries over 30 days: a post a day, asked every 6 hours.
        let daily = facts {
            $0.entries = 30; $0.collectedSince = Timestamp(secondsSince1970: t0.secondsSince1970 - 30 * 86_400)
        }
        #expect(delay(daily) == 21_600)
        // A post every 10 minutes: not more often than every 15 minutes.
        let busy = facts {
            $0.entries = 144; $0.collectedSince = Timestamp(secondsSince1970: t0.secondsSince1970 - 86_400)
        }
        #expect(delay(busy) == 900)
        // Two posts in 90 days: at most a day.
        let quiet = facts {
            $0.entries = 2; $0.collectedSince = Timestamp(secondsSince1970: t0.secondsSince1970 - 90 * 86_400)
        }
        #expect(delay(quiet) == 86_400)
    }

    @Test func neverMoreOftenThanTheFeedSaysItChanges() {
        // RSS 2.0 ttl: minutes to cache.
        #expect(delay(facts { $0.ttlMinutes = 180 }) == 10_800)
        #expect(delay(facts { $0.ttlMinutes = 5 }) == 3_600, "a shorter ttl does not make it asked more often")
        // sy:updatePeriod weekly, a week at most even past the daily bound; a month is capped at a week.
        #expect(delay(facts { $0.updateInterval = 604_800 }) == 604_800)
        #expect(delay(facts { $0.updateInterval = 2_592_000 }) == 604_800)
    }

    /// RSS 2.0 `skipHours` (GMT hours) and `skipDays`: never asked in them,
    /// but at the start of the next hour allowed.
    @Test func skippedHoursAndDaysAreLeftAlone() {
        // t0 is 2026-05-28T20:26:40Z, a Thursday (weekday 4); due an hour later, 21:26:40; delays from t0.
        #expect(delay(facts { $0.skipHours = [21, 22] }) == 9_200, "23:00, the first hour allowed")
        #expect(delay(facts { $0.skipHours = [20] }) == 3_600, "21:26 is allowed")
        #expect(
            delay(facts { $0.skipDays = [4, 5] }) == 99_200,
            "Thursday and Friday skipped: Saturday 00:00")
        #expect(
            delay(
                facts {
                    $0.skipDays = [4]; $0.skipHours = [0, 1]
                }) == 20_000, "Friday 02:00")
        #expect(delay(facts { $0.skipHours = Set(0..<24) }) == 3_600, "nothing allowed: the hints are ignored")
    }

    @Test func failuresBackOffByDoublingToAWeek() {
        #expect(delay(facts { $0.consecutiveFailures = 1 }) == 900)
        #expect(delay(facts { $0.consecutiveFailures = 2 }) == 1_800)
        #expect(delay(facts { $0.consecutiveFailures = 5 }) == 14_400)
        #expect(delay(facts { $0.consecutiveFailures = 12 }) == 604_800)
        #expect(delay(facts { $0.consecutiveFailures = 1_000 }) == 604_800)
    }

    @Test func neverBeforeWhatTheServerAsked() {
        // Retry-After or a cache lifetime, stored as notBefore.
        let asked = Timestamp(secondsSince1970: t0.secondsSince1970 + 7_200)
        #expect(delay(facts { $0.notBefore = asked }) == 7_200)
        #expect(
            delay(
                facts {
                    $0.notBefore = asked; $0.consecutiveFailures = 10
                }) == 460_800, "the later of the two")
    }

    @Test func jitterSpreadsFeedsAddedTogetherAndIsTheSameForTheSameState() {
        let schedule = FeedSchedule()
        let delays = (0..<200).map { n in
            delay(FeedSchedule.Facts(url: "https://host\(n).example/feed", lastFetch: t0), schedule)!
        }
        #expect(delays.allSatisfy { $0 >= 3_240 && $0 <= 3_960 }, "within ±10% of an hour")
        #expect(Set(delays).count > 150, "spread, not in step")
        #expect(
            delays
                == (0..<200).map { n in
                    delay(FeedSchedule.Facts(url: "https://host\(n).example/feed", lastFetch: t0), schedule)!
                })
    }
}

/// `--due-only`: a run fetches only the feeds its schedule says are due,
/// and serves the others from the state (counted at the server).
@Suite(.serialized) struct DueOnlyTests {
    let server = PlanetServer.state

    func requests(_ path: String) async throws -> Int {
        let response = try await FeedFetch.HTTPClient().fetch(FeedFetch.FetchRequest(url: server.url("/stats")))
        let all = try JSONDecoder().decode([String: [Int]].self, from: Data(response.body))
        return all[path]?.first ?? 0
    }

    @Test func onlyDueFeedsAreFetchedAndTheOthersStillShow() async throws {
        let w = try StateTests.Workspace("due-only")
        let feed = server.url("/feed/dueonly")
        func run(_ now: String, dueOnly: Bool = true) throws -> CommandRun {
            try CommandRun.feedmerge(
                [feed, "-o", w.path("out.atom"), "--state", w.state, "--now", now] + (dueOnly ? ["--due-only"] : []))
        }
        let before = try await requests("/feed/dueonly")
        // Never fetched: due.
        #expect(try run("2024-05-01T00:00:00Z").status == 0)
        #expect(try await requests("/feed/dueonly") == before + 1)
        let written = try String(contentsOfFile: w.path("out.atom"), encoding: .utf8)
        // Ten minutes later it is not due (a feed seen for less than a day: hourly): not asked, still in the output.
        let early = try run("2024-05-01T00:10:00Z")
        #expect(early.status == 0, "\(early.standardError)")
        #expect(try await requests("/feed/dueonly") == before + 1, "asked though not due")
        #expect(try String(contentsOfFile: w.path("out.atom"), encoding: .utf8) == written)
        // Without --due-only every run asks, as always.
        _ = try run("2024-05-01T00:20:00Z", dueOnly: false)
        #expect(try await requests("/feed/dueonly") == before + 2)
        // Two hours on, it is due again.
        _ = try run("2024-05-01T02:30:00Z")
        #expect(try await requests("/feed/dueonly") == before + 3)
    }
}
