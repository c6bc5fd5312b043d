import FeedFetch
import FeedModel
import FeedState
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
        schedule.failureJitter = 0
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
        // A post every 10 minutes: not more often than the hour's floor.
        let busy = facts {
            $0.entries = 144; $0.collectedSince = Timestamp(secondsSince1970: t0.secondsSince1970 - 86_400)
        }
        #expect(delay(busy) == 3_600)
        #expect(noJitter.check(busy).reason == .floor)
        #expect(noJitter.check(daily).reason == .postingRate)
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
        #expect(noJitter.check(facts { $0.ttlMinutes = 180 }).reason == .ttl)
        // Jitter only lengthens: a ttl is a floor however the feed's number falls.
        let jittered = (0..<200).map { n in
            delay(
                facts {
                    $0.url = "https://host\(n).example/feed"; $0.ttlMinutes = 180
                }, FeedSchedule())!
        }
        #expect(jittered.allSatisfy { $0 >= 10_800 && $0 < 11_880 })
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
        #expect(delay(facts { $0.consecutiveFailures = 1 }) == 3_600)
        #expect(delay(facts { $0.consecutiveFailures = 2 }) == 7_200)
        #expect(delay(facts { $0.consecutiveFailures = 5 }) == 57_600)
        #expect(delay(facts { $0.consecutiveFailures = 9 }) == 604_800)
        #expect(delay(facts { $0.consecutiveFailures = 1_000 }) == 604_800)
        #expect(noJitter.check(facts { $0.consecutiveFailures = 2 }).reason == .backoff)
    }

    /// A bot-protection challenge: 4 h, then 8 h, …, a week at most.
    @Test func aBlockedFeedWaitsFourHoursAndDoubling() {
        #expect(
            delay(
                facts {
                    $0.consecutiveFailures = 1; $0.blocked = true
                }) == 14_400)
        #expect(
            delay(
                facts {
                    $0.consecutiveFailures = 2; $0.blocked = true
                }) == 28_800)
        #expect(
            delay(
                facts {
                    $0.consecutiveFailures = 20; $0.blocked = true
                }) == 604_800)
        #expect(
            noJitter.check(
                facts {
                    $0.consecutiveFailures = 1; $0.blocked = true
                }
            ).reason == .blocked)
    }

    /// 20 feeds that failed together (with or without a Retry-After) come
    /// back spread over the window after their wait, never before it.
    @Test func failuresTogetherComeBackSpreadOverTheWindow() {
        let schedule = FeedSchedule()
        let asked = Timestamp(secondsSince1970: t0.secondsSince1970 + 7_200)
        for retryAfter in [nil, asked] {
            let delays = (0..<20).map { n in
                delay(
                    facts {
                        $0.url = "https://one.example/feed\(n)"; $0.consecutiveFailures = 1; $0.notBefore = retryAfter
                    }, schedule)!
            }
            let wait: Int64 = retryAfter == nil ? 3_600 : 7_200
            #expect(delays.allSatisfy { $0 >= wait && $0 < 2 * wait })
            #expect(delays.max()! - delays.min()! >= wait / 2, "spread over at least half the window: \(delays)")
        }
    }

    /// Two or more feeds of a host answered 429 and still wait: the host
    /// waits until the first of them is due; one 429 holds only its feed.
    @Test func twoTooManyRequestsMakeTheWholeHostWait() {
        func record(_ url: String, status: Int, notBefore: Int64?) -> FeedRecord {
            var record = FeedRecord(url: url, firstSeen: t0)
            record.lastFetch = t0
            record.lastStatus = status
            record.consecutiveFailures = status == 429 ? 1 : 0
            record.notBefore = notBefore.map { Timestamp(secondsSince1970: t0.secondsSince1970 + $0) }
            return record
        }
        let one = [
            record("https://a.example/1", status: 429, notBefore: 7_200),
            record("https://a.example/2", status: 200, notBefore: nil),
        ]
        #expect(noJitter.hostWaits(one, now: t0).isEmpty)
        let two = one + [record("https://a.example/3", status: 429, notBefore: 10_800)]
        let waits = noJitter.hostWaits(two, now: t0)
        #expect(waits == ["a.example": Timestamp(secondsSince1970: t0.secondsSince1970 + 7_200)])
        // Over: no wait.
        #expect(noJitter.hostWaits(two, now: Timestamp(secondsSince1970: t0.secondsSince1970 + 7_200)).isEmpty)
        let held = noJitter.check(facts { $0.hostNotBefore = waits["a.example"] })
        #expect(held.time == waits["a.example"] && held.reason == .hostRetryAfter)
    }

    @Test func neverBeforeWhatTheServerAsked() {
        // Retry-After or a cache lifetime, stored as notBefore.
        let asked = Timestamp(secondsSince1970: t0.secondsSince1970 + 7_200)
        #expect(delay(facts { $0.notBefore = asked }) == 7_200)
        #expect(
            delay(
                facts {
                    $0.notBefore = asked; $0.consecutiveFailures = 10
                }) == 604_800, "the later of the two")
        #expect(noJitter.check(facts { $0.notBefore = asked }).reason == .maxAge)
        #expect(
            noJitter.check(
                facts {
                    $0.notBefore = asked; $0.consecutiveFailures = 1
                }
            ).reason == .retryAfter)
        // A week's max-age is a week, not a day.
        let week = Timestamp(secondsSince1970: t0.secondsSince1970 + 604_800)
        #expect(delay(facts { $0.notBefore = week }) == 604_800)
    }

    /// A run that falls in a skipped hour asks nothing, even of a feed long due.
    @Test func aRunInASkippedHourAsksNothing() {
        // Due at 21:26 Thursday; the run is at Friday 00:10, a skipped day.
        let run = Timestamp(secondsSince1970: t0.secondsSince1970 + 13_400)
        let skipping = facts { $0.skipDays = [5] }
        #expect(!noJitter.isDue(skipping, now: run))
        let check = noJitter.check(skipping, now: run)
        #expect(check.reason == .skipHours)
        #expect(check.time == Timestamp(secondsSince1970: t0.secondsSince1970 + 99_200), "Saturday 00:00")
        #expect(noJitter.isDue(facts(), now: run))
    }

    @Test func jitterSpreadsFeedsAddedTogetherAndIsTheSameForTheSameState() {
        let schedule = FeedSchedule()
        let delays = (0..<200).map { n in
            delay(FeedSchedule.Facts(url: "https://host\(n).example/feed", lastFetch: t0), schedule)!
        }
        #expect(delays.allSatisfy { $0 >= 3_600 && $0 < 3_960 }, "within 10% over an hour, never under")
        #expect(Set(delays).count > 150, "spread, not in step")
        #expect(
            delays
                == (0..<200).map { n in
                    delay(FeedSchedule.Facts(url: "https://host\(n).example/feed", lastFetch: t0), schedule)!
                })
    }
}

/// A run with a state fetches only the feeds its schedule says are due,
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
        func run(_ now: String, dueOnly: Bool = true) async throws -> CommandRun {
            try await CommandRun.feedmerge(
                [feed, "-o", w.path("out.atom"), "--state", w.state, "--now", now] + (dueOnly ? [] : ["--fetch-all"]))
        }
        let before = try await requests("/feed/dueonly")
        // Never fetched: due.
        #expect(try await run("2024-05-01T00:00:00Z").status == 0)
        #expect(try await requests("/feed/dueonly") == before + 1)
        let written = try String(contentsOfFile: w.path("out.atom"), encoding: .utf8)
        // Ten minutes later it is not due (a feed seen for less than a day: hourly): not asked, still in the output.
        let early = try await run("2024-05-01T00:10:00Z")
        #expect(early.status == 0, "\(early.standardError)")
        #expect(try await requests("/feed/dueonly") == before + 1, "asked though not due")
        #expect(try String(contentsOfFile: w.path("out.atom"), encoding: .utf8) == written)
        // --fetch-all asks every feed now.
        _ = try await run("2024-05-01T00:20:00Z", dueOnly: false)
        #expect(try await requests("/feed/dueonly") == before + 2)
        // Two hours on, it is due again.
        _ = try await run("2024-05-01T02:30:00Z")
        #expect(try await requests("/feed/dueonly") == before + 3)
    }
}
