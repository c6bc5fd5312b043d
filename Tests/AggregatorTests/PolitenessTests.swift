import FeedFetch
import Foundation
import TestSupport
import Testing

/// The politeness rules (docs/politeness.md) checked where a publisher sees
/// them: at the origin. Server/origin_server.py logs every request while
/// the README's cron recipe runs at default settings over simulated days
/// (`--now`): every 5 minutes for a day, then hourly to day 8.
@Suite(.serialized, .tags(.slow), .fullTier) struct PolitenessTests {
    let server: LocalServer

    /// A server of each test's own, started without holding a thread of Swift's cooperative pool.
    init() async {
        server = await LocalServer.start(
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "Server/origin_server.py"))
    }

    /// One request as the origin logged it, with the simulated time of the run that made it.
    struct Request: Decodable {
        var start: Double
        var end: Double
        var port: Int
        var path: String
        var status: Int
        var headers: [String: String]
        var run: Int64 = 0
        var runIndex = 0

        enum CodingKeys: String, CodingKey { case start, end, port, path, status, headers }
    }

    func log(from first: Int) async throws -> [Request] {
        let response = try await HTTPClient().fetch(FetchRequest(url: server.url("/log?from=\(first)")))
        return try JSONDecoder().decode([Request].self, from: Data(response.body))
    }

    /// P7 at the origin: on each host, no request begins before the one
    /// before it ended, and two asked in one run (or period) start a second apart.
    func expectOneAtATimeASecondApart(_ requests: [Request]) {
        for (port, onHost) in Dictionary(grouping: requests, by: \.port) {
            let sorted = onHost.sorted { $0.start < $1.start }
            for (before, after) in zip(sorted, sorted.dropFirst()) {
                #expect(after.start >= before.end, "port \(port): \(before.path) and \(after.path) at once")
                if after.runIndex == before.runIndex {
                    #expect(
                        after.start - before.start >= 0.99,
                        "port \(port): \(before.path) then \(after.path) \(after.start - before.start) s apart")
                }
            }
        }
    }

    /// Writes `feeds.opml` into the workspace: each host's paths as feeds on its port.
    /// - Returns: the feeds' URLs, in the list's order.
    func writeList(_ layout: [(host: Int, paths: [String])], into w: StateTests.Workspace) throws -> [String] {
        let urls = layout.flatMap { host, paths in paths.map { server.url($0, port: host) } }
        let opml =
            "<opml version=\"2.0\"><body>\n"
            + urls.map { "<outline type=\"rss\" xmlUrl=\"\($0)\"/>" }.joined(separator: "\n") + "\n</body></opml>\n"
        try opml.write(toFile: w.path("feeds.opml"), atomically: true, encoding: .utf8)
        return urls
    }

    /// Which host (port index) serves which feeds.
    var layout: [(host: Int, paths: [String])] {
        [
            (1, ["/etag.xml", "/rotating.xml", "/plain.xml", "/maxage.xml"]),
            (2, ["/expires.xml", "/ttl.xml", "/gzip.xml"]),
            (3, ["/retry.xml"]),
            (4, ["/busy-1.xml", "/busy-2.xml", "/ok-1.xml", "/ok-2.xml", "/ok-3.xml"]),
            (25, ["/moved.xml", "/temp.xml", "/gone.xml", "/missing.xml"]),
            (26, ["/challenge.xml"]),
            (27, ["/skip.xml"]),
            (28, ["/challenge-page.xml"]),
        ] + (0..<20).map { (5 + $0, ["/fail-\($0).xml"]) }
    }

    /// The simulated cron: every 5 minutes on Friday 2024-01-05, then hourly to day 8.
    static let start: Int64 = 1_704_412_800
    var ticks: [Int64] {
        stride(from: Self.start, to: Self.start + 86_400, by: 300).map { $0 }
            + stride(from: Self.start + 86_400, to: Self.start + 8 * 86_400, by: 3_600).map { $0 }
    }

    @Test func aSimulatedWeekOfCronRunsKeepsEveryRuleAtTheOrigin() async throws {
        let w = try StateTests.Workspace("politeness")
        let urls = try writeList(layout, into: w)
        let origin = try await log(from: 0).count
        var requests: [Request] = []
        for (index, tick) in ticks.enumerated() {
            let now = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(tick)))
            let arguments = [
                w.path("feeds.opml"), "--state", w.state, "-o", w.path("all.atom"), "--now", now,
                "--link", "https://planet.example.org/", "--quiet",
            ]
            let run = try await CommandRun.feedmerge(arguments, atDefaults: true)
            #expect(run.status <= 1, "\(now): \(run.standardError)")
            for var request in try await log(from: origin + requests.count) {
                request.run = tick
                request.runIndex = index
                requests.append(request)
            }
        }
        let byPath = Dictionary(grouping: requests) { $0.path.split(separator: "?")[0] }
        func times(_ path: String) -> [Int64] { (byPath[Substring(path)] ?? []).map(\.run) }
        func gaps(_ path: String) -> [Int64] { zip(times(path).dropFirst(), times(path)).map { $0 - $1 } }

        // P1: validators echoed byte for byte.
        let etag = try #require(byPath["/etag.xml"])
        #expect(etag.count >= 2)
        for request in etag.dropFirst() {
            #expect(request.headers["if-none-match"] == #"W/"x-1\"odd""#)
            #expect(request.headers["if-modified-since"] == "Monday, 01-Jan-24 00:00:00 GMT")
        }
        // P2: one unconditional GET; a 304's fresh ETag is the one sent next.
        let rotating = try #require(byPath["/rotating.xml"])
        #expect(rotating.filter { $0.headers["if-none-match"] == nil }.count == 1)
        #expect(rotating.dropFirst().allSatisfy { $0.status == 304 }, "\(rotating.map(\.status))")
        // P3: an hour at least between two requests for one feed (a body without validators too).
        for (path, _) in byPath {
            #expect(gaps(String(path)).allSatisfy { $0 >= 3_600 }, "\(path): \(gaps(String(path)))")
        }
        #expect(times("/plain.xml").count >= 20, "a working feed is still read")
        // P4: max-age, Expires, ttl as floors, past a day.
        #expect(gaps("/maxage.xml").allSatisfy { $0 >= 172_800 } && !gaps("/maxage.xml").isEmpty)
        #expect(gaps("/expires.xml").allSatisfy { $0 >= 259_200 } && !gaps("/expires.xml").isEmpty)
        #expect(gaps("/ttl.xml").allSatisfy { $0 >= 10_800 } && !gaps("/ttl.xml").isEmpty)
        // P5: Retry-After per feed; two 429s on a host hold the whole host.
        #expect(gaps("/retry.xml").allSatisfy { $0 >= 7_200 } && !gaps("/retry.xml").isEmpty)
        let host4 = requests.filter { $0.port == server.ports[4] }
        let firstRun = try #require(host4.first).run
        let statuses = host4.filter { $0.run == firstRun }.map(\.status)
        #expect(statuses.filter { $0 == 429 }.count == 2 && statuses.last == 429, "nothing asked after the second 429")
        #expect(host4.allSatisfy { $0.run == firstRun || $0.run >= firstRun + 14_400 })
        // P6: 20 feeds that failed together retry spread over at least half their window.
        let retries = (0..<20).compactMap { times("/fail-\($0).xml").dropFirst().first }
        #expect(retries.count == 20)
        #expect(retries.allSatisfy { $0 >= Self.start + 3_600 })
        #expect(retries.max()! - retries.min()! >= 1_800, "\(retries.map { $0 - Self.start })")
        // P7: one request at a time per host, a second between two starts (within a run).
        expectOneAtATimeASecondApart(requests)
        // P8: an honest User-Agent with the operator's contact.
        let agents = Set(requests.compactMap { $0.headers["user-agent"] })
        #expect(agents.count == 1)
        #expect(agents.first?.hasPrefix("feedmerge/") == true)
        #expect(agents.first?.hasSuffix(" (+https://planet.example.org/)") == true, "\(agents)")
        // P9: gzip asked for, and read.
        #expect(requests.allSatisfy { $0.headers["accept-encoding"]?.contains("gzip") == true })
        #expect(try String(contentsOfFile: w.path("all.atom"), encoding: .utf8).contains("gzip 0"))
        // P10: nothing but the configured URL; one GET per feed when it is added.
        #expect(requests.allSatisfy { $0.headers["cookie"] == nil && $0.headers["referer"] == nil })
        let firstTick = requests.filter { $0.runIndex == 0 }
        let asked = Set(urls.map { URL(string: $0)!.path } + ["/new.xml", "/temp-target.xml"])
        #expect(firstTick.allSatisfy { asked.contains($0.path) })
        #expect(
            Dictionary(grouping: firstTick, by: \.path).values.allSatisfy { $0.count == 1 },
            "one GET per feed on the run that adds it")
        // P11: 301 remembered, 302 not, 410 never again, 404 less and less often.
        #expect(times("/moved.xml").count == 1 && times("/new.xml").count >= 2)
        #expect(times("/temp.xml").count == times("/temp-target.xml").count && times("/temp.xml").count >= 2)
        #expect(times("/gone.xml").count == 1)
        let missing = gaps("/missing.xml")
        #expect(missing.count >= 3)
        #expect(missing.count < 3 || missing.last! >= 4 * missing.first!, "\(missing)")
        // P12: a challenge is a block: 4 h at least, doubling, never in disguise.
        for path in ["/challenge.xml", "/challenge-page.xml"] {
            let waits = gaps(path)
            #expect(waits.count >= 2 && waits.allSatisfy { $0 >= 14_400 }, "\(path): \(waits)")
            #expect(waits.count < 2 || waits[1] >= 28_800, "\(path): \(waits)")
        }
        // P13: never in a skipped hour or on a skipped day (Saturday; 00:00–05:59 GMT).
        // (Its first request cannot know: the feed says so in itself.)
        for time in times("/skip.xml").dropFirst() {
            let date = Date(timeIntervalSince1970: Double(time))
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            #expect(calendar.component(.weekday, from: date) != 7, "asked on a Saturday: \(date)")
            #expect(calendar.component(.hour, from: date) >= 6, "asked in a skipped hour: \(date)")
        }
        #expect(times("/skip.xml").count >= 2)

        // Health says when and why each feed is next asked, and which are blocked.
        let last = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(ticks.last! + 60)))
        let health = try await CommandRun.feedmerge(
            [
                w.path("feeds.opml"), "--state", w.state, "-o", w.path("all.atom"), "--now", last,
                "--health", w.path("health.json"), "--quiet",
            ], atDefaults: true)
        #expect(health.status <= 1)
        let report = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: w.path("health.json"))))
        let feeds = try #require((report as? [String: Any])?["feeds"] as? [[String: Any]])
        func feed(_ path: String) -> [String: Any]? { feeds.first { ($0["url"] as? String)?.hasSuffix(path) == true } }
        #expect(feed("/challenge.xml")?["status"] as? String == "blocked")
        #expect(feed("/challenge.xml")?["next_check_reason"] as? String == "blocked")
        #expect(feed("/maxage.xml")?["next_check_reason"] as? String == "max-age")
        #expect(feed("/gone.xml") != nil && !(feed("/gone.xml")?["next_check"] is String))
    }

    /// The same rules held by three workers on one PostgreSQL state at their
    /// default settings: each feed at most once an hour whichever worker asks
    /// it, one request at a time per host and a second between two starts
    /// across all three, a host that answered two 429s left alone by all.
    @Test func threeWorkersKeepTheRulesBetweenThem() async throws {
        let w = try StateTests.Workspace("politeness-workers")
        let state = await PostgreSQLServer.shared.database()
        let layout: [(host: Int, paths: [String])] =
            (1...4).map { host in (host, (0..<5).map { "/w\(host)-\($0).xml" }) }
            + [(5, ["/busy-1.xml", "/busy-2.xml", "/ok-1.xml", "/ok-2.xml", "/ok-3.xml"])]
        let urls = try writeList(layout, into: w)
        let origin = try await log(from: 0).count
        var requests: [Request] = []
        let periods: [Int64] = [0, 600, 1_800, 4_200, 10_800, 18_000, 25_200]
        for (index, offset) in periods.enumerated() {
            let now = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(Self.start + offset)))
            let workers = try (1...3).map { k in
                let process = ChildProcess()
                process.executableURL = CommandRun.binary
                process.arguments = [
                    "worker", w.path("feeds.opml"), "--state", state, "--name", "w\(k)", "--now", now, "--drain",
                    "--contact", "https://planet.example.org/about", "-q",
                ]
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                return process
            }
            // Waited for without blocking a cooperative thread.
            for worker in workers { await worker.exited() }
            for worker in workers { #expect(worker.terminationStatus == 0, "a worker at \(now)") }
            for var request in try await log(from: origin + requests.count) {
                request.run = Self.start + offset
                request.runIndex = index
                requests.append(request)
            }
        }
        #expect(requests.count >= urls.count)
        // Each feed at most once an hour, whichever worker asks it.
        for (path, asked) in Dictionary(grouping: requests, by: \.path) {
            let times = asked.map(\.run).sorted()
            #expect(zip(times.dropFirst(), times).allSatisfy { $0 - $1 >= 3_600 }, "\(path): \(times)")
        }
        // One request at a time per host, a second between two starts, across the three workers.
        expectOneAtATimeASecondApart(requests)
        // Two 429s (Retry-After 4 h) hold the whole host, for every worker.
        let busy = requests.filter { $0.port == server.ports[5] }
        let first = try #require(busy.first).run
        #expect(busy.filter { $0.run == first }.filter { $0.status == 429 }.count == 2)
        #expect(
            busy.allSatisfy { $0.run == first || $0.run >= first + 14_400 }, "\(busy.map { ($0.path, $0.run - first) })"
        )
        #expect(
            Set(requests.compactMap { $0.headers["user-agent"] }).allSatisfy {
                $0.hasPrefix("feedmerge/") && $0.hasSuffix(" (+https://planet.example.org/about)")
            })
    }
}
