import Aggregator
#if !FEEDMERGE_SYSTEM_MALLOC
import CJemalloc  // the same allocator as the feedmerge executable
#endif
import FeedEmit
import FeedFetch
import FeedModel
import FeedParse
import Foundation
import TimelineMerge
import TextOutput

// The merge run's CPU work on one thread, for instruction counting with
// callgrind (scripts/bench-pipeline-instructions), which cannot follow the real
// command's threads: every file read and parsed, inserted into an unbounded
// timeline, and the timeline rendered as Atom, RSS and JSON Feed into
// buffers that are emptied as they fill (nothing is written).
//   pipeline-bench parse|merge|render FILE...
// Each stage includes the ones before it, so differences give each stage.

let arguments = Array(CommandLine.arguments.dropFirst())
guard let stage = arguments.first, ["parse", "merge", "render"].contains(stage) else {
    print("usage: pipeline-bench parse|merge|render FILE...")
    exit(2)
}
let files = arguments.dropFirst()
var rules = TimelineRules(now: Timestamp(secondsSince1970: 1_893_456_000))
rules.limit = nil
var timeline = Timeline(rules: rules)
var entriesParsed = 0
for (index, path) in files.enumerated() {
    do {
        let feed = try FeedParser.parse(LocalFile.contents(of: path), options: .init(url: "http://127.0.0.1/\(index)"))
        entriesParsed += feed.entries.count
        guard stage != "parse" else { continue }
        let source = FeedSource(
            title: feed.metadata.title?.value, link: feed.metadata.link, feedURL: "http://127.0.0.1/\(index)",
            id: feed.metadata.id, updated: feed.metadata.updated)
        timeline.insert(feed: feed, source: source, subscription: index)
    } catch {
        print("\(path): \(error)")
    }
}
var bytesRendered = 0
if stage == "render" {
    let entries = timeline.takeEntries()
    let metadata = OutputMetadata(
        title: "bench", link: nil, selfURL: nil, id: "urn:bench", author: nil,
        updated: entries.first?.date ?? Timestamp(secondsSince1970: 0), generator: "feedmerge",
        generatorVersion: "bench", generatorURI: "https://example.invalid/feedmerge")
    for format in OutputFormat.allCases {
        var out = TextBuffer(drainingAt: 1 << 20) { bytesRendered += $0.count }
        format.render(entries, metadata: metadata, into: &out)
        out.flush()
    }
}
print("\(files.count) files, \(entriesParsed) entries parsed, \(bytesRendered) bytes rendered")
