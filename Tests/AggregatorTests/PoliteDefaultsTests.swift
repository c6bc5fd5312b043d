import FeedFetch
import Foundation
import Testing
import VenusConfig

@testable import Commands

/// What the command line asks of servers by default (docs/politeness.md),
/// and what turns it off: the schedule, the spacing, the identity.
@Suite struct PoliteDefaultsTests {
    func options(_ arguments: [String]) throws -> MergeOptions {
        guard case .run(let options) = try MergeOptions.parse(arguments) else { throw UsageError("help asked") }
        return options
    }

    @Test func aRunWithAStateAsksOnlyWhatIsDueOneAtATimeASecondApart() throws {
        let defaults = try options(["a.opml", "-o", "x.atom"])
        #expect(defaults.dueOnly)
        #expect(defaults.fetch.maximumTransfersPerHost == 1)
        #expect(defaults.fetch.minimumHostSpacing == .seconds(1))
        #expect(defaults.fetch.throttledHostAfter429s == 2)
        #expect(try !options(["a.opml", "-o", "x.atom", "--fetch-all"]).dueOnly)
        let owned = try options(["a.opml", "-o", "x.atom", "--host-spacing", "0.25", "--per-host", "8"])
        #expect(owned.fetch.minimumHostSpacing == .milliseconds(250) && owned.fetch.maximumTransfersPerHost == 8)
        #expect(throws: UsageError.self) { try options(["a.opml", "-o", "x.atom", "--host-spacing", "-1"]) }
    }

    /// `--per-host HOST=N` and `--host-spacing HOST=S` raise the limits of one
    /// host, named as the per-host limit keys hosts; every other host keeps the
    /// defaults, which a bare value still sets.
    @Test func aHostTheOperatorRunsGetsItsOwnLimits() throws {
        let owned = try options([
            "a.opml", "-o", "x.atom", "--per-host", "Feeds.Example.org.=8", "--host-spacing=feeds.example.org=0",
            "--per-host", "2", "--per-host", "localhost:8080=3", "--host-spacing", "[0:0::1]:443=0.5",
        ]).fetch
        #expect(owned.maximumTransfersPerHost == 2 && owned.minimumHostSpacing == .seconds(1))
        #expect(owned.transfersAllowed(toHost: "feeds.example.org") == 8)
        #expect(owned.spacing(forHost: "feeds.example.org") == .zero)
        // A host named without a port: every port of it; with one: that port only.
        #expect(owned.transfersAllowed(toHost: "feeds.example.org:8443") == 8)
        #expect(owned.transfersAllowed(toHost: "127.0.0.1:8080") == 3)
        #expect(
            owned.transfersAllowed(toHost: "127.0.0.1") == 2 && owned.spacing(forHost: "127.0.0.1:8080") == .seconds(1))
        #expect(owned.spacing(forHost: "[::1]") == .milliseconds(500) && owned.transfersAllowed(toHost: "[::1]") == 2)
        #expect(
            owned.transfersAllowed(toHost: "example.org") == 2 && owned.spacing(forHost: "example.org") == .seconds(1))
        #expect(owned.largestTransfersPerHost == 8 && owned.followsRedirectsHopByHop)
        #expect(try options(["a.opml", "-o", "x.atom"]).fetch.hostOverrides.isEmpty)

        let bad: [(arguments: [String], saying: String)] = [
            (["--per-host", "=8"], "no host"), (["--host-spacing", "=0"], "no host"),
            (["--per-host", "https://feeds.example.org/=8"], "not a URL (feeds.example.org=8)"),
            (["--per-host", "feeds.example.org/feeds=8"], "without a path"),
            (["--host-spacing", "feeds.example.org?x=0"], "without a path"),
            (["--per-host", "me@feeds.example.org=8"], "not a host name"),
            (["--per-host", "::1=8"], "in brackets"), (["--per-host", "[::1=8"], "in brackets"),
            (["--per-host", "[]=8"], "not a host name"), (["--per-host", "feeds.example.org:http=8"], "the port"),
            (["--per-host", "feeds.example.org=0"], "at least 1"),
            (["--per-host", "feeds.example.org="], "at least 1"),
            (["--host-spacing", "feeds.example.org=3601"], "from 0 to 3600"),
            (["--host-spacing", "feeds.example.org=-1"], "from 0 to 3600"),
        ]
        for (arguments, saying) in bad {
            let error = #expect(throws: UsageError.self, "\(arguments)") {
                try options(["a.opml", "-o", "x.atom"] + arguments)
            }
            #expect(error?.message.hasPrefix(arguments[0]) == true, "\(error?.message ?? "")")
            #expect(error?.message.contains(saying) == true, "\(error?.message ?? "")")
        }
    }

    @Test func theUserAgentNamesTheProgramItsVersionAndTheOperatorsContact() throws {
        let bare = try options(["a.opml", "-o", "x.atom"]).fetchConfiguration.userAgentHeader
        #expect(bare == "feedmerge/\(feedmergeVersion)")
        // The site's address, unless a contact is given.
        let site = try options(["a.opml", "-o", "x.atom", "--link", "https://planet.example.org/"])
        #expect(
            site.fetchConfiguration.userAgentHeader == "feedmerge/\(feedmergeVersion) (+https://planet.example.org/)")
        let contact = try options([
            "a.opml", "-o", "x.atom", "--link", "https://planet.example.org/", "--contact", "https://example.org/bot",
        ])
        #expect(
            contact.fetchConfiguration.userAgentHeader == "feedmerge/\(feedmergeVersion) (+https://example.org/bot)")
        // Nothing that would end the comment or the header, nothing but http(s).
        for bad in ["https://x.example/a b", "https://x.example/(x)", "mailto:me@example.org", "https://x\r\nX: y"] {
            #expect(throws: UsageError.self, "\(bad)") { try options(["a.opml", "-o", "x.atom", "--contact", bad]) }
        }
    }

    @Test func aVenusConfigNamesItsContact() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("polite-venus-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("config.ini").path
        try "<html><TMPL_VAR name></html>\n".write(
            toFile: folder.appendingPathComponent("index.html.tmpl").path, atomically: true, encoding: .utf8)
        try """
        [Planet]
        name = P
        link = https://planet.example.org/
        contact_url = https://planet.example.org/about
        template_files = index.html.tmpl
        output_dir = out

        """.write(toFile: path, atomically: true, encoding: .utf8)
        let planet = try VenusConfiguration.load(path, workingFolder: folder.path)
        var warnings: [String] = []
        let merge = try PlanetCommand().mergeOptions(for: planet, warnings: &warnings)
        #expect(
            merge.fetchConfiguration.userAgentHeader
                == "feedmerge/\(feedmergeVersion) (+https://planet.example.org/about)")
    }

    @Test func botChallengesAreToldFromBrokenServers() {
        var headers = ResponseHeaders()
        #expect(BotChallenge.evidence(status: 403, headers: headers, body: Array("Forbidden".utf8)) == nil)
        #expect(BotChallenge.evidence(status: 500, headers: headers, body: Array("<html>oops</html>".utf8)) == nil)
        let page = Array("<!DOCTYPE html><html><head><title>Just a moment...</title></head></html>".utf8)
        #expect(BotChallenge.evidence(status: 503, headers: headers, body: page)?.contains("challenge page") == true)
        #expect(BotChallenge.evidence(status: 404, headers: headers, body: page) == nil, "a 404 is not a block")
        #expect(BotChallenge.challengeMarker(in: Array("<rss><title>Just a moment...</title></rss>".utf8)) == nil)
        headers.cfMitigated = "challenge"
        #expect(BotChallenge.evidence(status: 403, headers: headers, body: []) == "HTTP 403, cf-mitigated: challenge")
    }

    /// A feed that failed is not asked again until its backoff ends, and is
    /// not fine meanwhile: when every feed is failing the next run writes
    /// nothing (exit 3, the outputs as they were) and says they still fail.
    @Test func feedsStillFailingAreNotFine() async throws {
        let w = try StateTests.Workspace("still-failing")
        let feeds = ["http://127.0.0.1:9/a.xml", "http://127.0.0.1:9/b.xml"]  // the discard port: refused
        func run(_ now: String) async throws -> CommandRun {
            try await CommandRun.feedmerge(feeds + ["-o", w.path("out.atom"), "--state", w.state, "--now", now])
        }
        #expect(try await run("2024-02-01T00:00:00Z").status == 3)
        let later = try await run("2024-02-01T00:10:00Z")
        #expect(later.status == 3, "\(later.standardError)")
        #expect(later.standardError.contains("2 still failing (not asked until their backoff ends)"))
        #expect(!FileManager.default.fileExists(atPath: w.path("out.atom")))
    }
}
