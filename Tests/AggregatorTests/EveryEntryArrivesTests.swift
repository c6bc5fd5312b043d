import FeedEmit
import FeedParse
import Foundation
import TestSupport
import Testing

@testable import Aggregator

/// One feed merged alone (`--limit 0 --no-state`) writes every entry that
/// `feedmerge parse` finds, once per distinct id, each with the title, link,
/// date and author that `parse` gave (the feed's authors where the entry
/// names none). Over the fixtures beside this file (always) and every real
/// captured feed of `../shared/corpora/realworld` (when that folder is there).
@Suite(.serialized) struct EveryEntryArrivesTests {
    static let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let now = "2100-01-01T00:00:00Z"

    static var ownFixtures: [String] {
        let folder = here.appendingPathComponent("Fixtures")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        // The feeds only: the folders hold other documents (fuzz-opml: the OPML fuzzer's findings).
        return names.sorted().map { folder.appendingPathComponent($0).path }.filter {
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: $0, isDirectory: &isFolder) && !isFolder.boolValue
        }
    }

    static var realWorld: [String] {
        guard let folder = SharedCorpora.path("realworld"),
            let walker = FileManager.default.enumerator(atPath: folder.path)
        else { return [] }
        return walker.compactMap { $0 as? String }
            .filter { ["xml", "rss", "atom", "rdf", "json"].contains(($0 as NSString).pathExtension) }
            .filter { !$0.hasSuffix("feedparser_reference.json") }
            .sorted().map { folder.appendingPathComponent($0).path }
    }

    @Test func ownFixturesArePresent() {
        #expect(Self.ownFixtures.count >= 3)
    }

    @Test(arguments: ownFixtures) func ownFixture(_ path: String) async throws { try await check(path) }

    @Test(
        .tags(.corpus, .slow), .fullTier,
        .enabled(if: !realWorld.isEmpty, "../shared/corpora is not beside the project"), arguments: realWorld)
    func realWorldFeed(_ path: String) async throws { try await check(path) }

    func check(_ path: String) async throws {
        let parsed = try await CommandRun.feedmerge(["parse", path])
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(parsed.standardOutput.utf8)) as? [String: Any])
        guard document["error"] == nil else { return }  // not a feed: nothing to merge
        let feed = document["feed"] as? [String: Any] ?? [:]
        let entries = document["entries"] as? [[String: Any]] ?? []

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "feedmerge-arrives-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.json").path
        let merged = try await CommandRun.feedmerge([
            path, "-o", output, "--no-state", "--limit", "0", "--now", Self.now,
        ])
        #expect(merged.status == 0, "\(path): \(merged.standardError)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output)))
        let items = (json as? [String: Any])?["items"] as? [[String: Any]] ?? []

        // One entry per distinct id; entries without an id are told apart by their link, unless
        // id-less entries with different titles and text share it: then by their title and text.
        func text(_ entry: [String: Any]) -> String {
            let content = (entry["content"] as? [[String: Any]])?.first?["value"] as? String
            return ((entry["title"] as? String) ?? "") + "\n" + ((entry["summary"] as? String) ?? content ?? "")
        }
        var textsByLink: [String: Set<String>] = [:]
        for entry in entries where entry["id"] == nil {
            if let link = entry["link"] as? String { textsByLink[link, default: []].insert(text(entry)) }
        }
        var firstByName: [String: [String: Any]] = [:]
        var order: [String] = []
        for (index, entry) in entries.enumerated() {
            let link = entry["link"] as? String
            let sharedByOthers = link.map { (textsByLink[$0]?.count ?? 0) > 1 } ?? false
            let name =
                (entry["id"] as? String).map { "id:" + $0 }
                ?? (sharedByOthers ? "text:" + text(entry) : nil)
                ?? link.map { "link:" + LinkNormalizer.normalize($0) } ?? "entry:\(index)"
            if firstByName[name] == nil {
                firstByName[name] = entry
                order.append(name)
            }
        }
        #expect(items.count == order.count, "\(path): \(items.count) entries written, \(order.count) distinct")

        // An undated entry's fallback is the feed's date as Venus reads it: RSS's pubDate, else
        // dc:date or Atom's updated, never lastBuildDate (which `updated` then holds).
        let built = (try? Data(contentsOf: URL(fileURLWithPath: path)))?.range(of: Data("<lastBuildDate".utf8)) != nil
        let feedDate = (feed["published"] ?? (built ? nil : feed["updated"])) as? String
        let feedAuthors = names(feed["authors"])
        var itemsByID: [String: [String: Any]] = [:]
        for item in items { if let id = item["id"] as? String { itemsByID[id] = item } }
        for name in order where name.hasPrefix("id:") {
            let entry = firstByName[name]!
            let id = String(name.dropFirst(3))
            guard let item = itemsByID[id] else {
                Issue.record("\(path): entry \(id) not written")
                continue
            }
            #expect(item["url"] as? String == entry["link"] as? String, "\(path) \(id): link")
            #expect((item["title"] as? String ?? "") == plainTitle(entry), "\(path) \(id): title")
            let date = (entry["published"] ?? entry["updated"]) as? String ?? feedDate ?? Self.now
            #expect(item["date_published"] as? String == date, "\(path) \(id): date")
            let authors = names(entry["authors"])
            #expect(names(item["authors"]) == (authors.isEmpty ? feedAuthors : authors), "\(path) \(id): authors")
        }
    }

    /// Authors as the JSON writer names them: the name, else the address.
    func names(_ value: Any?) -> [String] {
        (value as? [[String: Any]] ?? []).compactMap { person in
            (person["name"] as? String) ?? (person["email"] as? String).flatMap { $0.contains("@") ? $0 : nil }
        }
    }

    func plainTitle(_ entry: [String: Any]) -> String {
        let title = entry["title"] as? String ?? ""
        return entry["title_type"] as? String == "text" ? title : PlainText.from(html: title)
    }
}
