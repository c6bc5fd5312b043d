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
}
