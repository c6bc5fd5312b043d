import FeedParse
import Foundation
import Testing

/// Every entry is credited to its real author, or to no person: feed-level
/// authors fill in, free-text bylines stay names, and the merged feed's own
/// author (`--author`) is never inherited. The Atom output stays valid.
@Suite struct CreditTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    @Test func entriesAreCreditedToTheirAuthorsOrToNoPerson() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("feedmerge-credit-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let atomPath = folder.appendingPathComponent("out.atom").path
        let jsonPath = folder.appendingPathComponent("out.json").path
        let run = try await CommandRun.feedmerge(
            ["day-page-anchors.rss", "home-page-links.atom", "free-text-creators.rss"].map {
                Self.fixtures.appendingPathComponent($0).path
            } + [
                "-o", atomPath, "-o", jsonPath, "--no-state", "--limit", "0", "--now", "2025-01-01T00:00:00Z",
                "--author", "Planet Curator <curator@planet.example>",
            ])
        #expect(run.status == 0, "\(run.standardError)")

        let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Schemas/atom.rng")
        let (status, output) = try await EndToEndTests.tool(["xmllint", "--noout", "--relaxng", schema.path, atomPath])
        #expect(status == 0, "\(output)")

        let atom = try FeedParser.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: atomPath))))
        func credit(_ title: String) -> [String] {
            atom.entries.first { $0.title?.value.hasPrefix(title) == true }?.authors.compactMap { $0.name ?? $0.email }
                ?? ["missing"]
        }
        #expect(credit("Live") == ["Nick Ames (now), Ed Aarons and Ben Fisher (earlier)"])
        #expect(atom.entries.first { $0.title?.value == "Live" }?.authors.first?.email == nil)
        #expect(credit("Report") == ["Jo Reporter"])
        #expect(credit("Fourth") == ["A Writer"])
        #expect(credit("Fifth") == ["Day Editor"])
        #expect(credit("One") == ["Sam Feedauthor"])
        #expect(credit("Three") == ["Guest Writer"])
        // No author anywhere in its feed: the entry names nobody, and its source names
        // the feed itself (which keeps the document valid, RFC 4287 4.1.2), never the
        // curator. A reader applies the source's author (4.2.1): the feed is credited.
        #expect(credit("Nobody") == ["Free text creators"])
        let document = String(decoding: try Data(contentsOf: URL(fileURLWithPath: atomPath)), as: UTF8.self)
        let nobody = try #require(document.range(of: "<title type=\"text\">Nobody</title>"))
        let entry = document[nobody.lowerBound...].prefix { _ in true }.split(separator: "</entry>")[0]
        #expect(entry.contains("<name>Free text creators</name>"))
        #expect(!entry.contains("Planet Curator"))

        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: jsonPath)))
        let object = try #require(json as? [String: Any])
        #expect(object["authors"] == nil, "the curator would be inherited by the item without authors")
        let items = object["items"] as? [[String: Any]] ?? []
        let nobodyItem = items.first { $0["title"] as? String == "Nobody" }
        #expect(nobodyItem != nil && nobodyItem?["authors"] == nil)
        let live = items.first { $0["title"] as? String == "Live" }?["authors"] as? [[String: Any]]
        #expect(live?.first?["url"] == nil, "a byline is not an address")
    }
}
