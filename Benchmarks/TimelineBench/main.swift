import Aggregator
import TimelineMerge
import FeedModel
import Foundation

// Timeline micro-benchmark (run by scripts/bench-timeline): 1,000,000 entries
// from 10,000 date-sorted feeds inserted into the timeline, unbounded and
// with a limit of 100, beside one sort of the same entries by the same order.
// Prints the median of 5 runs of each.

let feedCount = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 10_000
let perFeed = 100
var generator = SystemRandomNumberGenerator()
let now = Timestamp(secondsSince1970: 1_800_000_000)

let feeds: [ParsedFeed] = (0..<feedCount).map { n in
    // Each feed is newest first, as feeds are; feeds overlap in time.
    var date = 1_700_000_000 + Int64.random(in: 0..<10_000_000, using: &generator)
    let entries = (0..<perFeed).map { k -> Entry in
        var entry = Entry()
        entry.id = "tag:feed\(n).example,2024:\(k)"
        entry.link = "https://feed\(n).example/posts/\(k)"
        entry.published = Timestamp(secondsSince1970: date)
        date -= Int64.random(in: 60..<200_000, using: &generator)
        return entry
    }
    return ParsedFeed(format: .rss20, metadata: FeedMetadata(), entries: entries)
}
let sources = (0..<feedCount).map { FeedSource(feedURL: "https://feed\($0).example/feed.xml") }
let flat: [MergedEntry] = feeds.enumerated().flatMap { n, feed in
    feed.entries.map { MergedEntry(entry: $0, date: $0.published!, source: sources[n]) }
}

func seconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func median(_ runs: Int, _ body: () -> Void) -> Double {
    let times = (0..<runs).map { _ in seconds(body) }.sorted()
    return times[times.count / 2]
}

func insertAll(limit: Int?) -> Int {
    var rules = TimelineRules(now: now)
    rules.limit = limit
    var timeline = Timeline(rules: rules)
    for (n, feed) in feeds.enumerated() { timeline.insert(feed: feed, source: sources[n], subscription: n) }
    return timeline.count
}

var kept = 0
let sortTime = median(5) {
    var copy = flat
    copy.sort { a, b in
        a.date != b.date ? a.date > b.date : a.source.feedURL < b.source.feedURL
    }
    kept = copy.count
}
let unbounded = median(5) { kept = insertAll(limit: nil) }
let unboundedCount = kept
let bounded = median(5) { kept = insertAll(limit: 100) }

print("timeline: \(feedCount) feeds x \(perFeed) entries = \(feedCount * perFeed) entries, median of 5 runs")
print(String(format: "  %-42@ %8.3f s", "one sort of the same array" as NSString, sortTime))
print(
    String(
        format: "  %-42@ %8.3f s  %5.2fx the sort (%d kept)", "insert, unbounded" as NSString, unbounded,
        unbounded / sortTime, unboundedCount))
print(
    String(
        format: "  %-42@ %8.3f s  %5.2fx the unbounded insert (%d kept)", "insert, --limit 100" as NSString, bounded,
        bounded / unbounded, kept))
