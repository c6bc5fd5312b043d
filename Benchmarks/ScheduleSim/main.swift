import Aggregator
import FeedModel
import Foundation

// A month of a mixed population of feeds, each fetched when `FeedSchedule`
// says it is due, against fetching every feed every 15 minutes: the requests
// made, and how late a new post is seen (median, 95th percentile).
//
//     swift run -c release schedule-sim [FEEDS_PER_KIND]
//
// Posting is random but seeded: the same numbers on every run.

struct Random {
    var state: UInt64
    mutating func next() -> Double {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(state >> 11) / Double(1 << 53)
    }
    /// An exponential wait with the given mean: posts arrive as a Poisson process.
    mutating func wait(mean: Double) -> Int64 { Int64(-mean * log(1 - next())) }
}

let day: Int64 = 86_400
let month = 30 * day
let perKind = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 200
let kinds: [(name: String, meanGap: Double?, failing: Bool)] = [
    ("hourly", 3_600, false), ("daily", 86_400, false), ("weekly", 7 * 86_400, false),
    ("monthly", 30 * 86_400, false), ("dead", nil, false), ("failing", nil, true),
]
let schedule = FeedSchedule()
var random = Random(state: 42)

print("\(perKind) feeds of each kind, 30 days, a month of history before (the schedule's estimate warms up)")
print(
    "kind        requests (schedule)  requests (every 15 min)   ratio   seen after a post: median / p95 (schedule; every 15 min: 7.5 / 14.3 min)"
)
var totalScheduled = 0
var totalFixed = 0
for kind in kinds {
    var requests = 0
    var lateness: [Int64] = []
    for n in 0..<perKind {
        // Posts over two months: the first is history the state already keeps.
        var posts: [Int64] = []
        if let gap = kind.meanGap {
            var t = -month + random.wait(mean: gap)
            while t < month {
                posts.append(t)
                t += random.wait(mean: gap)
            }
        }
        // Last fetched at the start of the month, with the month before in its history.
        var facts = FeedSchedule.Facts(
            url: "https://host\(n % 250).example/\(kind.name)/\(n)", lastFetch: Timestamp(secondsSince1970: 0))
        facts.collectedSince = Timestamp(secondsSince1970: -month)
        var seen = posts.prefix { $0 <= 0 }.count
        var oldest = 0  // the first post still within the state's 90 days
        facts.entries = seen
        var now: Int64 = 0
        while true {
            guard let next = schedule.nextCheck(facts)?.secondsSince1970, next < month else { break }
            now = max(next, now + 1)
            requests += 1
            facts.lastFetch = Timestamp(secondsSince1970: now)
            if kind.failing {
                facts.consecutiveFailures += 1
                continue
            }
            var arrived = seen
            while arrived < posts.count, posts[arrived] <= now { arrived += 1 }
            for post in posts[seen..<arrived] where post > 0 { lateness.append(now - post) }
            seen = arrived
            while oldest < seen, posts[oldest] <= now - 90 * day { oldest += 1 }
            facts.entries = seen - oldest
        }
    }
    let fixed = perKind * Int(month / 900)
    totalScheduled += requests
    totalFixed += fixed
    lateness.sort()
    let median = lateness.isEmpty ? "-" : String(format: "%.1f", Double(lateness[lateness.count / 2]) / 60)
    let p95 = lateness.isEmpty ? "-" : String(format: "%.1f", Double(lateness[lateness.count * 95 / 100]) / 60)
    print(
        "\(kind.name.padding(toLength: 10, withPad: " ", startingAt: 0))  \(String(requests).leftPadded(19))  \(String(fixed).leftPadded(23))  \(String(format: "%6.3f", Double(requests) / Double(fixed)))   \(median) / \(p95) min"
    )
}
print(
    "all         \(String(totalScheduled).leftPadded(19))  \(String(totalFixed).leftPadded(23))  \(String(format: "%6.3f", Double(totalScheduled) / Double(totalFixed)))"
)

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
