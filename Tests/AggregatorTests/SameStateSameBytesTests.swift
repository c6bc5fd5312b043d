import FeedFetch
import FeedModel
import FeedParse
import Foundation
import Testing

/// A feed served from the state (304, failure, deferral) contributes exactly
/// what its last fresh fetch contributed: the same outputs, byte for byte,
/// in all three formats, for the same run time.
@Suite(.serialized) struct SameStateSameBytesTests {
    let server = PlanetServer.state
    let outputs = ["out.atom", "out.rss", "out.json"]

    func control(_ path: String) async throws {
        _ = try await HTTPClient().fetch(FetchRequest(url: server.url(path)))
    }

    @discardableResult
    func run(_ feeds: [String], _ w: StateTests.Workspace) async throws -> CommandRun {
        try await CommandRun.feedmerge(
            feeds.map { server.url("/feed/\($0)") } + outputs.flatMap { ["-o", w.path($0)] } + [
                "--now", "2024-02-01T00:00:00Z", "--state", w.state, "--link", "http://planet.example/",
                "--fetch-all",  // every run asks again, at the same time
            ])
    }

    func bytes(_ w: StateTests.Workspace) throws -> [Data] {
        try outputs.map { try Data(contentsOf: URL(fileURLWithPath: w.path($0))) }
    }

    /// A merge with no entry at all (a feed that lists none) is dated by its
    /// newest source, not by the run: unchanged feeds, unchanged bytes.
    @Test func aMergeWithoutEntriesIsDatedByItsSourcesNotByTheRun() async throws {
        let w = try StateTests.Workspace("empty-merge")
        let feed = w.path("empty.rss")
        try Data(
            """
            <rss version="2.0"><channel><title>Empty</title><link>http://empty.example/</link>
            <lastBuildDate>Sat, 21 Mar 2020 06:29:51 -0400</lastBuildDate></channel></rss>
            """.utf8
        ).write(to: URL(fileURLWithPath: feed))
        var written: [[Data]] = []
        for now in ["2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z"] {
            let run = try await CommandRun.feedmerge(
                [feed] + outputs.flatMap { ["-o", w.path($0)] } + [
                    "--now", now, "--state", w.state, "--link", "http://planet.example/",
                ])
            #expect(run.status == 0, "\(run.standardError)")
            written.append(try bytes(w))
        }
        #expect(written[0] == written[1])
        let atom = String(decoding: written[0][0], as: UTF8.self)
        #expect(atom.contains("<updated>2020-03-21T10:29:51Z</updated>"), "\(atom)")
    }

    @Test func notModifiedFailingAndDeferredFeedsGiveTheSameBytes() async throws {
        let w = try StateTests.Workspace("same-bytes")
        let feeds = ["atomsame", "jsonsame", "rsssame"]
        let first = try await run(feeds, w)
        #expect(first.status == 0, "\(first.standardError)")
        let fresh = try bytes(w)

        let notModified = try await run(feeds, w)
        #expect(notModified.status == 0, "\(notModified.standardError)")
        #expect(notModified.standardError.contains("3 not modified"), "\(notModified.standardError)")
        for (name, (before, after)) in zip(outputs, zip(fresh, try bytes(w))) {
            #expect(before == after, "\(name) changed after a 304")
        }

        for feed in ["atomsame", "jsonsame"] { try await control("/set/\(feed)/fail") }
        let failing = try await run(feeds, w)
        #expect(failing.status == 1)
        for (name, (before, after)) in zip(outputs, zip(fresh, try bytes(w))) {
            #expect(before == after, "\(name) changed while its feeds failed")
        }

        // 429 with Retry-After: failed this run, deferred (not fetched) the next.
        for feed in ["atomsame", "jsonsame"] { try await control("/set/\(feed)/retry") }
        let throttled = try await run(feeds, w)
        #expect(throttled.status == 1)
        let deferred = try await run(feeds, w)
        // The two asked to wait are counted as such, not as answers they never gave; two 429s
        // from one host (the test's server) make the whole host wait, the third feed too.
        #expect(
            deferred.standardError.contains(
                "0 not modified, 1 not asked (not due, or asked to wait), 2 still failing (not asked until their "
                    + "backoff ends), 0 failed"),
            "\(deferred.standardError)")
        for (name, (before, after)) in zip(outputs, zip(fresh, try bytes(w))) {
            #expect(before == after, "\(name) changed while its feeds were deferred")
        }
        for feed in ["atomsame", "jsonsame"] { try await control("/set/\(feed)/ok") }
    }

    @Test func feedLevelAuthorsCreditTheEntriesThatNameNone() async throws {
        let w = try StateTests.Workspace("credit")
        let result = try await run(["atomcredit", "jsoncredit"], w)
        #expect(result.status == 0, "\(result.standardError)")
        let atom = try FeedParser.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: w.path("out.atom")))))
        func authors(_ id: String) -> [String?] {
            atom.entries.first { $0.id == id }?.authors.map(\.name) ?? []
        }
        #expect(authors("urn:atomcredit:a1") == ["Entry Author"])
        #expect(authors("urn:atomcredit:a2") == ["Feed Author"])
        #expect(authors("urn:jsoncredit:j1") == ["JSON Feed Author"])
        #expect(authors("urn:jsoncredit:j2") == ["Item Author"])
        // The feed's own id, author and category travel in <source>.
        let document = String(decoding: try Data(contentsOf: URL(fileURLWithPath: w.path("out.atom"))), as: UTF8.self)
        #expect(document.contains("<id>urn:uuid:atomcredit-feed</id>"))
        #expect(document.contains("<category term=\"feed-topic\"/>"))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: w.path("out.json"))))
        let items = (json as? [String: Any])?["items"] as? [[String: Any]] ?? []
        let names = items.map { (($0["authors"] as? [[String: Any]])?.first?["name"] as? String) ?? "-" }
        #expect(names.sorted() == ["Entry Author", "Feed Author", "Item Author", "JSON Feed Author"])
    }

    /// A 410 fails the run that gets it, loudly; later runs do not ask the feed, count it
    /// as gone and do not fail for it.
    @Test func aGoneFeedFailsOnceThenIsCountedAsGone() async throws {
        let w = try StateTests.Workspace("gone-once")
        let feeds = ["gone1", "stays1"]
        #expect(try await run(feeds, w).status == 0)
        try await control("/set/gone1/gone")
        defer { Task { try? await control("/set/gone1/ok") } }
        let gone = try await run(feeds, w)
        #expect(gone.status == 1, "\(gone.standardError)")
        #expect(gone.standardError.contains("failed: \(server.url("/feed/gone1"))"), "\(gone.standardError)")
        let later = try await run(feeds, w)
        #expect(later.status == 0, "\(later.standardError)")
        #expect(!later.standardError.contains("failed:"), "\(later.standardError)")
        #expect(
            later.standardError.contains("1 not modified, 1 gone (410, not asked again), 0 failed"),
            "\(later.standardError)")
        try await control("/set/gone1/ok")
    }

    /// A permanent redirect is said once, on the run that follows it.
    @Test func aMoveIsSaidOnce() async throws {
        let w = try StateTests.Workspace("moved-once")
        try await control("/set/moves1/moved")
        let moved = try await run(["moves1"], w)
        let line = "moved: \(server.url("/feed/moves1")) -> \(server.url("/feed/moves1-new"))"
        #expect(moved.standardError.contains(line), "\(moved.standardError)")
        let later = try await run(["moves1"], w)
        #expect(!later.standardError.contains("moved:"), "\(later.standardError)")
        try await control("/set/moves1/ok")
    }
}

/// A feed larger than `--max-bytes` is cut at the cap: the entries that
/// arrived whole are kept, with a warning, and the one cut off is dropped.
@Suite struct SizeCapTests {
    @Test func aFeedCutAtTheCapKeepsItsWholeEntries() async throws {
        let w = try StateTests.Workspace("size-cap")
        let output = w.path("out.json")
        let run = try await CommandRun.feedmerge([
            PlanetServer.state.url("/big"), "-o", output, "--no-state", "--limit", "0", "--max-bytes", "40000",
            "--now", "2024-02-01T00:00:00Z", "--verbose",
        ])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("body larger than 40000 bytes"), "\(run.standardError)")
        #expect(run.standardError.contains("truncated"), "\(run.standardError)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output)))
        let items = (json as? [String: Any])?["items"] as? [[String: Any]] ?? []
        // About 40,000 / 330 bytes per item; every one written is whole.
        #expect(items.count > 100 && items.count < 130, "\(items.count) items")
        #expect(items.allSatisfy { ($0["content_html"] as? String)?.count == 200 })
    }

    /// With a state, the cut document's validators are not stored: the next
    /// run fetches it whole instead of being told 304 and keeping the cut.
    @Test func aCutFeedIsFetchedWholeNextTime() async throws {
        let w = try StateTests.Workspace("size-cap-state")
        func run(_ extra: [String]) async throws -> (CommandRun, Int) {
            let output = w.path("out.json")
            let run = try await CommandRun.feedmerge(
                [
                    PlanetServer.state.url("/big"), "-o", output, "--state", w.state, "--limit", "0",
                    "--now", "2024-02-01T00:00:00Z", "--fetch-all",
                ] + extra)
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output)))
            return (run, ((json as? [String: Any])?["items"] as? [Any])?.count ?? 0)
        }
        let (cut, few) = try await run(["--max-bytes", "40000"])
        #expect(
            cut.standardError.contains("the document was cut there"), "shown without --verbose: \(cut.standardError)")
        #expect(few < 130)
        let (whole, all) = try await run([])
        #expect(whole.standardError.contains("1 feed ok"), "\(whole.standardError)")
        #expect(all == 400)
    }
}

/// A date that cannot be read is never silently "now": the run says so,
/// without `--verbose`.
@Suite struct UnreadableDateTests {
    @Test func theRunNamesFeedsWithUnreadableDates() async throws {
        let w = try StateTests.Workspace("unreadable-date")
        let feed = w.path("feed.rss")
        try Data(
            """
            <rss version="2.0"><channel><title>t</title><link>http://t.example/</link><description>d</description>
            <item><title>a</title><guid>urn:a</guid><pubDate>Sometime around lunch</pubDate></item>
            <item><title>b</title><guid>urn:b</guid><pubDate>Seg, 24 Set 2018 10:00:00 -0300</pubDate></item>
            </channel></rss>
            """.utf8
        ).write(to: URL(fileURLWithPath: feed))
        let run = try await CommandRun.feedmerge([
            feed, "-o", w.path("out.json"), "--no-state", "--now", "2024-02-01T00:00:00Z",
        ])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("1 unreadable date ("), "\(run.standardError)")
        #expect(run.standardError.contains("Sometime around lunch"))
    }
}

/// Feeds are merged in subscription order, whichever server answers first:
/// three feeds whose entries chain by id and link (P and Q share a link, P
/// and R an id) give the same output when R answers first and P last.
@Suite struct ArrivalOrderTests {
    func merge(delays: [String: String], into w: StateTests.Workspace, _ name: String) async throws -> Data {
        for feed in ["P", "Q", "R"] {
            _ = try await HTTPClient().fetch(
                FetchRequest(url: PlanetServer.state.url("/set/order-\(feed)/\(delays[feed] ?? "0")")))
        }
        let output = w.path(name)
        let run = try await CommandRun.feedmerge(
            ["P", "Q", "R"].map { PlanetServer.state.url("/order/\($0)") } + [
                "-o", output, "--no-state", "--limit", "0", "--now", "2024-07-01T00:00:00Z",
            ])
        #expect(run.status == 0, "\(run.standardError)")
        return try Data(contentsOf: URL(fileURLWithPath: output))
    }

    @Test func theResultDoesNotDependOnWhichServerAnswersFirst() async throws {
        let w = try StateTests.Workspace("arrival-order")
        let inOrder = try await merge(delays: ["Q": "0.2", "R": "0.4"], into: w, "in-order.json")
        let reversed = try await merge(delays: ["P": "0.4", "Q": "0.2"], into: w, "reversed.json")
        #expect(inOrder == reversed)
        let items = (try JSONSerialization.jsonObject(with: inOrder) as? [String: Any])?["items"] as? [Any]
        #expect(items?.count == 1, "P, Q and R are one entry: Q by its link, R by its id")
    }
}
