import Foundation
import TestSupport
import Testing

/// One feed can never erase another feed's entries, through the command
/// line: feeds served on 127.0.0.1 (Server/identity_server.py), merged
/// once as fetched, then rendered from the state (every feed deferred), into
/// a feed and a planet page.
@Suite(.serialized) struct EntryOwnershipEndToEndTests {
    static let server = LocalServer.start(
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Server/identity_server.py"))

    static let feeds = ["victim", "mallory", "aggregator", "person", "category"]

    /// Each item's title, its source's home page and the feeds it credits, from a JSON Feed output.
    static func items(_ path: String) throws -> [(title: String, site: String, alsoIn: [String])] {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        let items = try #require((json as? [String: Any])?["items"] as? [[String: Any]])
        return items.map { item in
            let extra = item["_feedmerge"] as? [String: Any]
            let source = extra?["source"] as? [String: Any]
            return (
                item["title"] as? String ?? "", source?["home_page_url"] as? String ?? "",
                extra?["also_in"] as? [String] ?? []
            )
        }
    }

    @Test func aFeedReusingAnotherFeedsIdOrLinkCannotEraseItsEntriesFetchedOrFromTheState() async throws {
        let w = try StateTests.Workspace("ownership")
        let urls = Self.feeds.map { Self.server.url("/\($0).xml") }
        let common = ["--state", w.state, "--limit", "0", "--now", "2025-01-01T00:00:00Z", "-q"]
        let fetched = try await CommandRun.feedmerge(
            urls + ["-o", w.path("fetched.json"), "-o", w.path("fetched.html")] + common)
        #expect(fetched.status == 0, "\(fetched.standardError)")
        let rendered = try await CommandRun.feedmerge(
            ["render"] + urls + ["-o", w.path("rendered.json"), "-o", w.path("rendered.html")] + common)
        #expect(rendered.status == 0, "\(rendered.standardError)")

        for run in ["fetched", "rendered"] {
            let items = try Self.items(w.path("\(run).json"))
            let titles = items.map(\.title)
            // The victim's posts stand, credited to the victim's feed; Mallory's entries are Mallory's own.
            #expect(
                titles == [
                    "Alice post in category", "Victim second post", "Mallory text by link", "Victim first post",
                    "Mallory text by id",
                ], "\(run)")
            for item in items where item.title.hasPrefix("Victim") {
                #expect(item.site == "https://victim.example/", "\(run): \(item.title)")
            }
            for item in items where item.title.hasPrefix("Mallory") {
                #expect(item.site == "https://mallory.example/" && item.alsoIn.isEmpty, "\(run): \(item.title)")
            }
            // The aggregator's re-publication (the original link, an hour later) credits it on the
            // victim's copy; the category feed of Alice's site merges with her own feed, as before.
            #expect(items.first { $0.title == "Victim first post" }?.alsoIn == [urls[2]], "\(run)")
            #expect(items.first { $0.title == "Victim second post" }?.alsoIn == [], "\(run)")
            #expect(items.first { $0.title == "Alice post in category" }?.alsoIn == [urls[3]], "\(run)")
            let page = String(
                decoding: try Data(contentsOf: URL(fileURLWithPath: w.path("\(run).html"))), as: UTF8.self)
            for title in ["Victim first post", "Victim second post", "Mallory text by id", "Mallory text by link"] {
                #expect(page.contains(title), "\(run).html lacks \(title)")
            }
        }
    }
}
