import Foundation
import Testing

/// `feedmerge parse --sanitize`: HTML and XHTML text constructs go through
/// the sanitizer, plain text does not; without the flag values are as parsed.
@Suite struct ParseSanitizeTests {
    static let feed = """
        <rss version="2.0"><channel><title>a &lt;b&gt; title</title><link>http://a.test/</link>
        <description>&lt;b onclick="x()"&gt;about&lt;/b&gt;&lt;script&gt;bad()&lt;/script&gt;</description>
        <item><title>One</title>
        <description>&lt;p&gt;Hi &lt;a href="javascript:alert(1)"&gt;x&lt;/a&gt;&lt;img src="http://a.test/i.png" onerror="x()"&gt;&lt;/p&gt;</description>
        </item></channel></rss>
        """

    func parse(_ arguments: [String]) async throws -> [String: Any] {
        let run = try await CommandRun.feedmerge(["parse"] + arguments + ["-"], input: Data(Self.feed.utf8))
        #expect(run.status == 0, "\(run.standardError)")
        return try #require(JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
    }

    @Test func htmlValuesAreSanitized() async throws {
        let doc = try await parse(["--sanitize"])
        let entry = try #require((doc["entries"] as? [[String: Any]])?.first)
        #expect(entry["summary"] as? String == "<p>Hi <a>x</a><img src=\"http://a.test/i.png\"></p>")
        let feed = try #require(doc["feed"] as? [String: Any])
        #expect(feed["subtitle"] as? String == "<b>about</b>")
        #expect(feed["title"] as? String == "a <b> title")
    }

    @Test func withoutTheFlagValuesAreAsParsed() async throws {
        let doc = try await parse([])
        let entry = try #require((doc["entries"] as? [[String: Any]])?.first)
        #expect((entry["summary"] as? String)?.contains("javascript:") == true)
    }
}
