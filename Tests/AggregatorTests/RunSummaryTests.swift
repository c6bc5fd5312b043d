import Foundation
import Testing

/// The summary line counts a feed read in part apart from one read whole.
@Suite struct RunSummaryTests {
    @Test func truncatedAndRecoveredFeedsAreNotCountedAsOK() throws {
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
        let run = try CommandRun.feedmerge(
            ["whole.rss", "cut.rss", "broken.rss"].map(w.path) + ["-o", w.path("out.atom"), "--no-state"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.standardError.contains("1 feed ok, 1 truncated, 1 recovered, 0 not modified, 0 failed"),
            "\(run.standardError)")
        let whole = try CommandRun.feedmerge([w.path("whole.rss"), "-o", w.path("out2.atom"), "--no-state"])
        #expect(whole.standardError.contains("1 feed ok, 0 not modified, 0 failed"), "\(whole.standardError)")
    }
}
