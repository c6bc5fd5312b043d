import FeedEmit
import FeedModel
import FeedParse
import Foundation
import TextOutput
import TimelineMerge

/// A feed document, any bytes: the path every fetched feed takes.
/// - The parser never traps, whatever the bytes (a refusal is an error).
/// - `feedmerge parse`'s normalized JSON of what it read is valid JSON.
/// - The feed merged into a timeline and written as Atom, RSS and JSON Feed
///   reads back from each of our own outputs with as many entries as were
///   written, and the JSON Feed output is valid JSON.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzParse(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let feed: ParsedFeed
    do {
        feed = try FeedParser.parse(bytes, options: .init(url: "http://fuzz.test/feed.xml"))
    } catch {
        return 0  // refused with an error: what a hostile document should get
    }
    requireJSON(Array(feed.normalizedJSON(file: "fuzz").utf8), "the normalized JSON")

    let now = Timestamp(secondsSince1970: 1_800_000_000)
    var rules = TimelineRules(now: now)
    rules.limit = nil
    var timeline = Timeline(rules: rules)
    let source = FeedSource(
        title: feed.metadata.title?.value, link: feed.metadata.link, feedURL: "http://fuzz.test/feed.xml",
        id: feed.metadata.id, updated: feed.metadata.updated, authors: feed.metadata.authors)
    timeline.insert(feed: feed, dates: feed.entries.map { $0.ownDate ?? now }, source: source, subscription: 0)
    let entries = timeline.takeEntries()
    let metadata = OutputMetadata(
        title: "fuzz", link: "http://fuzz.test/", selfURL: "http://fuzz.test/merged", id: "urn:fuzz", author: nil,
        updated: entries.first?.date ?? now, generator: "feedmerge", generatorVersion: "fuzz")
    for format in OutputFormat.allCases {
        let written = format.renderBytes(entries, metadata: metadata)
        if format == .json { requireJSON(written, "the JSON Feed output") }
        let read: ParsedFeed
        do {
            read = try FeedParser.parse(written, options: .init(url: "http://fuzz.test/merged"))
        } catch {
            fatalError("our \(format) output does not parse: \(error)\n\(String(decoding: written, as: UTF8.self))")
        }
        guard read.entries.count == entries.count else {
            fatalError(
                "\(entries.count) entries written as \(format), \(read.entries.count) read back\n"
                    + String(decoding: written, as: UTF8.self))
        }
    }
    return 0
}

private func requireJSON(_ bytes: [UInt8], _ what: String) {
    do {
        _ = try JSONSerialization.jsonObject(with: Data(bytes))
    } catch {
        fatalError("\(what) is not JSON: \(error)\n\(String(decoding: bytes, as: UTF8.self))")
    }
}
