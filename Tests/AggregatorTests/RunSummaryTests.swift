import Foundation
import Testing

/// The summary line counts a feed read in part apart from one read whole.
@Suite struct RunSummaryTests {
    @Test func truncatedAndRecoveredFeedsAreNotCountedAsOK() async throws {
        let w = try StateTests.Workspace("summary-partial")
        let item = { (n: Int) in "<item><guid>urn:\(n)</guid><title>Item \(n)</title></item>" }
        let files = [
            "whole.rss": "<rss version=\"2.0\"><channel><title>w</title>\(item(1))</channel></rss>",
            // Cut in the middle of its second item.
            "cut.rss": "<rss version=\"2.0\"><channel><title>c</title>\(item(2))<item><guid>urn:3</guid><title>Ite",
            // A mismatched end tag: not well-formed, recovered.
            "broken.rss": "<rss version=\"2.0\"><channel><title>b</titel>\(item(4))</channel></rss>",
        ]
        for (name, text) in files { try text.write(toFile: w.path(name), atomically: true, encoding: .utf8) }
        let run = try await CommandRun.feedmerge(
            ["whole.rss", "cut.rss", "broken.rss"].map(w.path) + [
                "-o", w.path("out.atom"), "-o", w.path("index.html"), "--health", w.path("health.json"), "--no-state",
            ])
        #expect(run.status == 0, "entries were kept: \(run.standardError)")
        #expect(
            run.standardError.contains("1 feed ok, 1 truncated, 1 recovered, 0 not modified, 0 failed"),
            "\(run.standardError)")
        // Each named with why, at the default verbosity.
        #expect(
            run.standardError.contains("read in part: \(w.path("cut.rss")): document truncated after 1 complete"),
            "\(run.standardError)")
        #expect(
            run.standardError.contains("read in part: \(w.path("broken.rss")): not well-formed XML, recovered"),
            "\(run.standardError)")
        #expect(!run.standardError.contains("read in part: \(w.path("whole.rss"))"))
        // Its own status in the health report and on the page.
        let health = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: w.path("health.json"))))
        let feeds = (health as? [String: Any])?["feeds"] as? [[String: Any]] ?? []
        let status = Dictionary(
            uniqueKeysWithValues: feeds.map { (($0["url"] as? String) ?? "", ($0["status"] as? String) ?? "") })
        #expect(status[w.path("whole.rss")] == "ok" && status[w.path("cut.rss")] == "partial", "\(status)")
        #expect(status[w.path("broken.rss")] == "partial", "\(status)")
        let cut = feeds.first { $0["url"] as? String == w.path("cut.rss") }
        #expect((cut?["error"] as? String)?.hasPrefix("document truncated") == true, "\(String(describing: cut))")
        let page = try String(contentsOfFile: w.path("index.html"), encoding: .utf8)
        #expect(page.contains("<li class=\"partial\">") && page.contains("Read in part: document truncated"), "\(page)")
        let whole = try await CommandRun.feedmerge([w.path("whole.rss"), "-o", w.path("out2.atom"), "--no-state"])
        #expect(whole.standardError.contains("1 feed ok, 0 not modified, 0 failed"), "\(whole.standardError)")
    }
}
