import FeedModel
import FeedParse
import Foundation
import Testing

/// A subscription to a blog's home page: the feed it advertises is
/// followed, said once, remembered, and written back into the OPML.
@Suite struct AutodiscoveryTests {
    let server = PlanetServer.shared

    @Test func aPageThatAdvertisesAFeedIsFollowedRememberedAndWrittenBack() async throws {
        let w = try StateTests.Workspace("autodiscovery")
        let opml = w.path("subs.opml")
        try """
        <?xml version="1.0"?>
        <opml version="2.0"><head><title>t</title></head><body>
        <outline text="Blog 3" xmlUrl="\(server.url("/blog/3"))"/>
        </body></opml>
        """.write(toFile: opml, atomically: true, encoding: .utf8)
        func run() async throws -> CommandRun {
            try await CommandRun.feedmerge([
                opml, "-o", w.path("out.atom"), "--state", w.state, "--now", "2024-12-01T00:00:00Z",
                "--update-opml",
            ])
        }
        let first = try await run()
        #expect(first.status == 0, "\(first.standardError)")
        #expect(
            first.standardError.contains("followed the feed it advertises, \(server.url("/feed/3"))"),
            "\(first.standardError)")
        let entries = try FeedParser.parse(
            Array(try Data(contentsOf: URL(fileURLWithPath: w.path("out.atom")))), options: .init(url: nil)
        ).entries
        #expect(entries.count == 5 && entries.allSatisfy { $0.title?.value.hasPrefix("Feed 3 entry") == true })
        // The list now names the feed itself; the next run asks for it directly, and says nothing.
        let rewritten = try String(contentsOfFile: opml, encoding: .utf8)
        #expect(rewritten.contains("xmlUrl=\"\(server.url("/feed/3"))\""), "\(rewritten)")
        let second = try await run()
        #expect(second.status == 0, "\(second.standardError)")
        #expect(!second.standardError.contains("advertises"), "\(second.standardError)")
    }

    @Test func aPageThatAdvertisesNothingStillFailsAsNotAFeed() async throws {
        let w = try StateTests.Workspace("autodiscovery-none")
        let run = try await CommandRun.feedmerge([
            server.url("/broken/html"), server.url("/feed/1"), "-o", w.path("out.atom"), "--no-state",
        ])
        #expect(run.status == 1)
        #expect(run.standardError.contains("HTML page"), "\(run.standardError)")
    }
}
