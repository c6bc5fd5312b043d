import FeedModel
import FeedParse
import Foundation
import TestSupport
import Testing

/// Venus's date fallbacks through `feedmerge planet`: an entry its feed
/// gives no date (here by `ignore_in_feed = updated`) takes the feed's
/// date, on every run; the same entry from another subscription keeps its
/// real date.
@Suite(.serialized) struct VenusPlanetDatingTests {
    static let venus = SharedCorpora.path("venus")?.path ?? ""
    static let present = FileManager.default.fileExists(atPath: venus + "/themes")

    /// A blog's main feed, last updated at the end of 2012, whose dates the planet does not believe.
    static let old = """
        <feed xmlns="http://www.w3.org/2005/Atom"><title>Old blog</title><id>tag:blog.example,2012:feed</id>
        <link href="http://blog.example/"/><updated>2012-12-31T00:00:00Z</updated>
        <entry><id>tag:blog.example,2012:1</id><title>Old one</title><link href="http://blog.example/1"/>
          <updated>2012-03-01T00:00:00Z</updated><content>one</content></entry>
        <entry><id>tag:blog.example,2012:2</id><title>Old two</title><link href="http://blog.example/2"/>
          <updated>2012-06-01T00:00:00Z</updated><content>two</content></entry>
        </feed>
        """

    /// The same blog's category feed: entry 2 with its real date, and a recent post.
    static let category = """
        <feed xmlns="http://www.w3.org/2005/Atom"><title>Blog: swift</title><id>tag:blog.example,2012:swift</id>
        <link href="http://blog.example/swift/"/><updated>2024-11-30T00:00:00Z</updated>
        <entry><id>tag:blog.example,2024:3</id><title>Recent</title><link href="http://blog.example/3"/>
          <updated>2024-11-30T00:00:00Z</updated><content>three</content></entry>
        <entry><id>tag:blog.example,2012:2</id><title>Old two</title><link href="http://blog.example/2"/>
          <updated>2012-06-01T00:00:00Z</updated><content>two</content></entry>
        </feed>
        """

    func configuration(_ w: StateTests.Workspace) -> String {
        """
        [Planet]
        name = Dates
        cache_directory = cache
        output_dir = www
        output_theme = asf
        items_per_page = 100

        [\(w.path("old.xml"))]
        name = Old
        ignore_in_feed = updated

        [\(w.path("swift.xml"))]
        name = Swift

        """
    }

    /// Each entry of the planet's Atom output: its id and its date.
    func run(_ w: StateTests.Workspace, now: String) async throws -> [(id: String, date: String)] {
        let run = try await CommandRun.feedmerge(["planet", "--venus", Self.venus, "--now", now, w.path("config.ini")])
        #expect(run.status == 0, "\(run.standardError)")
        let data = try Data(contentsOf: URL(fileURLWithPath: w.path("www/atom.xml")))
        return try FeedParser.parse(Array(data), options: .init(url: nil)).entries.map {
            ($0.id ?? "", ($0.updated ?? $0.published)?.rfc3339 ?? "")
        }
    }

    @Test(.tags(.corpus), .enabled(if: present, "needs ../shared/corpora/venus"))
    func undatedEntriesTakeTheirFeedsDateAndADuplicateKeepsItsRealDate() async throws {
        let w = try StateTests.Workspace("venus-dating")
        try Self.old.write(toFile: w.path("old.xml"), atomically: true, encoding: .utf8)
        try Self.category.write(toFile: w.path("swift.xml"), atomically: true, encoding: .utf8)
        try configuration(w).write(toFile: w.path("config.ini"), atomically: true, encoding: .utf8)
        let expected = [
            ("tag:blog.example,2024:3", "2024-11-30T00:00:00Z"),
            ("tag:blog.example,2012:1", "2012-12-31T00:00:00Z"),
            ("tag:blog.example,2012:2", "2012-06-01T00:00:00Z"),
        ]
        // The first run, and a later one from the state: the 2012 posts never top the page.
        for now in ["2024-12-01T00:00:00Z", "2024-12-02T00:00:00Z"] {
            let entries = try await run(w, now: now)
            #expect(entries.map(\.id) == expected.map(\.0), "\(now): \(entries)")
            #expect(entries.map(\.date) == expected.map(\.1), "\(now): \(entries)")
        }
    }
}
