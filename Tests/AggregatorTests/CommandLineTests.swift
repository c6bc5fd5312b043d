import FeedEmit
import FeedFetch
import Foundation
import PlanetPage
import Testing

@testable import Commands

/// The options model: each `MergeOptions` option parsed, and every usage error.
@Suite struct OptionParsingTests {
    func options(_ arguments: [String]) throws(UsageError) -> MergeOptions {
        guard case .run(let options) = try MergeOptions.parse(arguments) else { throw UsageError("help asked") }
        return options
    }

    func error(_ arguments: [String]) -> String? {
        do {
            _ = try MergeOptions.parse(arguments)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func formatAppliesToTheOutputItFollows() throws {
        let parsed = try options(["a.opml", "-o", "x.xml", "--format", "atom", "-o", "y.xml", "--format", "rss"])
        #expect(try parsed.outputs.map { try $0.resolvedFormat() } == [.feed(.atom), .feed(.rss)])
        let page = try options(["a.opml", "-o", "planet", "--format", "html", "-o", "list", "--format", "opml"])
        #expect(try page.outputs.map { try $0.resolvedFormat() } == [.page, .subscriptionList])
    }

    @Test func namesSayTheirFormat() throws {
        let parsed = try options(["a.opml", "-o", "atom.xml", "-o", "site/rss.xml", "-o", "feed.json", "-o", "x.ATOM"])
        #expect(
            try parsed.outputs.map { try $0.resolvedFormat() } == [
                .feed(.atom), .feed(.rss), .feed(.json), .feed(.atom),
            ])
        #expect(error(["a.opml", "-o", "feed.xml"])?.contains("--format") == true)
        #expect(error(["a.opml", "-o", "anatomy.xml"])?.contains("--format") == true)  // words, not letters
        #expect(try options(["a.opml", "-o", "site/index.html"]).outputs.map { try $0.resolvedFormat() } == [.page])
        #expect(
            try options(["a.opml", "-o", "subs.OPML"]).outputs.map { try $0.resolvedFormat() } == [.subscriptionList])
        // The page's options without a page are a mistake worth saying.
        #expect(error(["a.opml", "-o", "x.atom", "--theme", "t.xsl"])?.contains("-o index.html") == true)
        #expect(error(["a.opml", "--theme", "t.xsl", "-o", "x.atom"])?.contains("-o index.html") == true)
        #expect(error(["a.opml", "-o", "x.atom", "--page-items", "5"])?.contains("-o index.html") == true)
        #expect(error(["a.opml", "-o", "x.atom", "--summary-only"])?.contains("-o index.html") == true)
    }

    @Test func eachPageHasItsOwnThemeAndCap() throws {
        let parsed = try options([
            "a.opml", "--page-items", "10", "-o", "a.html", "--theme", "a.xsl", "-o", "feed.atom", "--page-days", "2",
            "-o", "b.html", "--theme", "b.tmpl", "--page-items", "0", "-o", "c.html",
        ])
        #expect(parsed.outputs.map(\.page.themePath) == ["a.xsl", nil, "b.tmpl", nil])
        // After a feed: the page before it.
        #expect(parsed.outputs[0].page.days == 2 && parsed.outputs[1].page.isEmpty)
        #expect(parsed.outputs[2].page.items == 0)
        // Before any -o: every page without its own.
        #expect(parsed.outputs[3].page.over(parsed.page).cap == PageCap(items: 10, days: nil))
        #expect(parsed.outputs[2].page.over(parsed.page).cap == PageCap(items: nil, days: nil))
        #expect(MergeOptions.PageRequest().cap == PageCap(items: 60, days: nil), "a page shows 60 entries by default")
        // The old spelling: a theme at the end is the page's.
        let old = try options(["a.opml", "-o", "index.html", "-o", "feed.atom", "--theme", "t.xsl"])
        #expect(old.outputs[0].page.themePath == "t.xsl")
        let feedsFirst = try options(["a.opml", "-o", "feed.atom", "--theme", "t.xsl", "-o", "index.html"])
        #expect(feedsFirst.page.themePath == "t.xsl")
        #expect(error(["a.opml", "-o", "a.html", "--theme", "x", "--theme", "y"])?.contains("twice") == true)
        #expect(
            error(["a.opml", "-o", "a.html", "--theme", "x", "-o", "f.atom", "--theme", "y"])?.contains("twice") == true
        )
    }

    @Test func standardOutputIsAtomUnlessTold() throws {
        #expect(try options(["a.opml", "-o", "-"]).outputs.map { try $0.resolvedFormat() } == [.feed(.atom)])
        #expect(
            try options(["a.opml", "-o", "-", "--format", "json"]).outputs.map { try $0.resolvedFormat() } == [
                .feed(.json)
            ])
    }

    @Test func valuesAndDefaults() throws {
        let defaults = try options(["a.opml", "-o", "x.atom"])
        #expect(defaults.limit == 1000 && defaults.keepDays == 90 && defaults.useState && !defaults.quiet)
        let parsed = try options([
            "a.opml", "--limit=5", "--per-feed", "2", "--future", "drop", "-q", "--no-state", "--jobs", "3",
            "--author", "Jo <jo@example.org>", "-o", "x.atom", "--", "-weird-name",
        ])
        #expect(parsed.limit == 5 && parsed.perFeed == 2 && parsed.future == .drop && parsed.quiet && !parsed.useState)
        #expect(parsed.fetch.maximumConcurrentTransfers == 3)
        #expect(parsed.author?.name == "Jo" && parsed.author?.email == "jo@example.org")
        #expect(parsed.sources == ["a.opml", "-weird-name"])
    }

    @Test(arguments: [
        (["-o", "x.atom"], "no SOURCE"),
        (["a.opml"], "no output"),
        (["a.opml", "-o"], "--output needs a value"),
        (["a.opml", "-o", "x.atom", "--limit", "many"], "--limit needs a whole number"),
        (["a.opml", "-o", "x.atom", "--jobs", "0"], "--jobs needs a whole number of at least 1"),
        (["a.opml", "-o", "x.atom", "--future", "later"], "--future is one of keep, clamp, drop"),
        (["a.opml", "-o", "x.atom", "--now", "someday"], "--now: cannot read the date"),
        (["a.opml", "-o", "x.atom", "--limt", "3"], "unknown option --limt; did you mean --limit?"),
        (["a.opml", "--format", "rss", "-o", "x.rss"], "--format applies to the -o before it"),
        (["a.opml", "-o", "x", "--format", "rss", "--format", "atom"], "x is given two formats"),
        (["a.opml", "-o", "x.atom", "-o", "x.atom"], "x.atom is given as an output twice"),
        (["a.opml", "-o", "x.atom", "-o", "./x.atom"], "./x.atom is given as an output twice"),
        (["a.opml", "-o", "x.atom", "--quiet=yes"], "--quiet takes no value"),
        (["-", "-", "-o", "x.atom"], "standard input (-) is given as a SOURCE twice"),
    ])
    func usageErrors(arguments: [String], message: String) {
        #expect(error(arguments)?.hasPrefix(message) == true, "\(error(arguments) ?? "no error")")
    }

    @Test func sinceIsResolvedAgainstTheRunTime() throws {
        let parsed = try options(["a.opml", "-o", "x.atom", "--since", "2d", "--now", "2025-01-03T00:00:00Z"])
        let rules = try parsed.rules(now: parsed.runTime(environment: [:]))
        #expect(rules.since?.rfc3339 == "2025-01-01T00:00:00Z")
        #expect(throws: UsageError.self) {
            try options(["a.opml", "-o", "x.atom", "--since", "soon"]).rules(now: rules.now)
        }
    }

    @Test func helpIsGeneratedFromTheDeclarations() {
        let help = MergeOptions.interface.help(defaults: MergeOptions())
        for option in MergeOptions.interface.options { #expect(help.contains(option.name)) }
        #expect(help.contains("--keep-days N") && help.contains("(default: 90)"))
        #expect(help.contains("75  another run holds the state's lock"))
        #expect(throws: Never.self) {
            guard case .help = try MergeOptions.parse(["a.opml", "--help"]) else { throw UsageError("no help") }
        }
    }

    @Test func fetchAndParseShareTheScanner() throws {
        guard case .run(let fetch) = try FetchCommand.parse(["--jobs", "2", "http://a.example/"]) else {
            throw UsageError("help")
        }
        #expect(fetch.configuration.maximumConcurrentTransfers == 2 && fetch.urls == ["http://a.example/"])
        #expect(throws: UsageError.self) { try FetchCommand.parse(["--jobs", "0", "http://a.example/"]) }
        #expect(throws: UsageError.self) { try ParseCommand.parse(["--url"]) }
    }
}

/// The command line as users meet it: the built binary, a real server.
@Suite(.serialized) struct CommandLineBehaviourTests {
    let server = PlanetServer.shared

    func workspace(_ name: String) throws -> StateTests.Workspace { try StateTests.Workspace("cli-\(name)") }

    @Test func aUsageErrorIsOneLineAndAPointerToHelp() async throws {
        let run = try await CommandRun.feedmerge(["feeds.opml", "-o", "x.atom", "--limit", "x"])
        #expect(run.status == 2)
        #expect(
            run.standardError.split(separator: "\n") == [
                "feedmerge: --limit needs a whole number (0 or more), not 'x'", "Try 'feedmerge --help'.",
            ])
        let parse = try await CommandRun.feedmerge(["parse", "--bogus"])
        #expect(parse.status == 2 && parse.standardError.hasSuffix("Try 'feedmerge parse --help'.\n"))
        let help = try await CommandRun.feedmerge(["fetch", "--help"])
        #expect(help.status == 0 && help.standardOutput.contains("--per-host [HOST=]N"))
    }

    @Test func helpPrintsTheHelpOfTheCommandItNames() async throws {
        let top = try await CommandRun.feedmerge(["help"])
        let asked = try await CommandRun.feedmerge(["--help"])
        #expect(top.status == 0 && top.standardOutput == asked.standardOutput)
        #expect(top.standardOutput.contains("feedmerge help [COMMAND]"))
        for word in HelpCommand.commandWords {
            let help = try await CommandRun.feedmerge(["help", word])
            let own = try await CommandRun.feedmerge([word, "--help"])
            #expect(help.status == 0 && help.standardError.isEmpty, "help \(word): \(help.standardError)")
            #expect(help.standardOutput == own.standardOutput, "help \(word)")
        }
        #expect(try await CommandRun.feedmerge(["help", "planet"]).standardOutput.contains("--venus DIR"))
        let unknown = try await CommandRun.feedmerge(["help", "nosuch"])
        #expect(unknown.status == 2)
        #expect(
            unknown.standardError.split(separator: "\n") == [
                "feedmerge help: unknown command nosuch (planet, worker, render, parse, fetch, state, key)",
                "Try 'feedmerge help --help'.",
            ])
        #expect(try await CommandRun.feedmerge(["help", "planet", "worker"]).status == 2)
    }

    @Test func helpKnowsEveryCommand() {
        #expect(HelpCommand.commandWords == CommandReference.all.compactMap(\.word).filter { $0 != "help" })
    }

    @Test func aFolderGivenAsAnOutputIsNamedAsOne() async throws {
        let w = try workspace("folder-output")
        let run = try await CommandRun.feedmerge([server.url("/feed/1"), "-o", w.folder.path, "--no-state"])
        #expect(run.status == 2, "\(run.standardError)")
        #expect(run.standardError.contains("is a folder") && run.standardError.contains("/index.html"))
        let formatted = try await CommandRun.feedmerge([server.url("/feed/1"), "-o", w.folder.path, "--format", "rss"])
        #expect(formatted.status == 2 && formatted.standardError.contains("is a folder"), "\(formatted.standardError)")
    }

    @Test func parseSaysAURLIsNotAFileAndReadsFileURLs() async throws {
        let w = try workspace("parse-url")
        try Data("<rss version=\"2.0\"><channel><title>Local</title></channel></rss>".utf8)
            .write(to: URL(fileURLWithPath: w.path("feed.xml")))
        let run = try await CommandRun.feedmerge(["parse", server.url("/feed/1"), "file://" + w.path("feed.xml")])
        let lines = run.standardOutput.split(separator: "\n")
        #expect(run.status == 1 && lines.count == 2, "\(run.standardOutput)")
        #expect(lines.first?.contains("is a URL: download it first") == true && !run.standardOutput.contains("No such"))
        #expect(lines.last?.contains("\"title\":\"Local\"") == true, "\(run.standardOutput)")
    }

    @Test func anUnwritableOutputStopsTheRunBeforeAnyFetchAndTouchesNothing() async throws {
        let w = try workspace("unwritable")
        try Data("previous".utf8).write(to: URL(fileURLWithPath: w.path("ok.atom")))
        let run = try await CommandRun.feedmerge([
            server.url("/feed/1"), "-o", w.path("ok.atom"), "-o", w.path("missing/x.rss"), "--link",
            "http://a.example/",
            "--no-state",
        ])
        #expect(run.status == 3, "\(run.standardError)")
        #expect(run.standardError.contains("missing/x.rss") && run.standardError.contains("no feed was fetched"))
        #expect(try String(contentsOfFile: w.path("ok.atom"), encoding: .utf8) == "previous")
        #expect(try FileManager.default.contentsOfDirectory(atPath: w.folder.path) == ["ok.atom"])
    }

    @Test func anUnwritableHealthReportIsAnOutputFailure() async throws {
        let w = try workspace("health")
        let run = try await CommandRun.feedmerge([
            server.url("/feed/1"), "-o", w.path("out.atom"), "--state", w.state, "--health", w.path("no/health.json"),
        ])
        #expect(run.status == 3, "\(run.standardError)")
        #expect(run.standardError.contains("--health"))
    }

    @Test func aStateThatCannotBeCreatedIsNotReportedAsALock() async throws {
        let w = try workspace("state-create")
        try Data().write(to: URL(fileURLWithPath: w.path("file")))
        let run = try await CommandRun.feedmerge([
            server.url("/feed/1"), "-o", w.path("out.atom"), "--state", w.path("file/state.sqlite"),
        ])
        #expect(run.status == 73, "\(run.standardError)")
        #expect(run.standardError.contains(w.path("file")) && run.standardError.contains("not a folder"))
        #expect(!run.standardError.contains("another run"))
    }

    @Test func aFolderAsTheStateFileIsACreationError() async throws {
        let w = try workspace("state-folder")
        let run = try await CommandRun.feedmerge([
            server.url("/feed/1"), "-o", w.path("out.atom"), "--state", w.folder.path,
        ])
        #expect(run.status == 73 && run.standardError.contains("is a folder"), "\(run.standardError)")
    }

    @Test func standardOutputThatCannotBeWrittenIsAnOutputFailure() async throws {
        let w = try workspace("stdout-full")
        let run = try await CommandRun.feedmerge(
            [server.url("/feed/1"), "-o", "-", "-o", w.path("out.atom"), "--no-state"],
            standardOutput: FileHandle(forWritingAtPath: "/dev/full"))
        #expect(run.status == 4, "\(run.standardError)")
        #expect(run.standardError.contains("standard output: cannot write"))
        #expect(run.standardError.contains("written to 1 of 2 outputs"))
    }

    @Test func anOutputKeepsWhatItWas() async throws {
        let w = try workspace("keep")
        let real = w.path("real.atom")
        try Data("old".utf8).write(to: URL(fileURLWithPath: real))
        chmod(real, 0o640)
        try FileManager.default.createSymbolicLink(atPath: w.path("link.atom"), withDestinationPath: real)
        let run = try await CommandRun.feedmerge([server.url("/feed/1"), "-o", w.path("link.atom"), "--no-state"])
        #expect(run.status == 0, "\(run.standardError)")
        let link = try FileManager.default.attributesOfItem(atPath: w.path("link.atom"))
        #expect(link[.type] as? FileAttributeType == .typeSymbolicLink)
        #expect(try String(contentsOfFile: real, encoding: .utf8).contains("<feed"))
        let attributes = try FileManager.default.attributesOfItem(atPath: real)
        #expect((attributes[.posixPermissions] as? Int) == 0o640)
        // Anything but a regular file (here a named pipe) is refused, before any fetch.
        #expect(mkfifo(w.path("pipe.json"), 0o644) == 0)
        let pipe = try await CommandRun.feedmerge([server.url("/feed/1"), "-o", w.path("pipe.json"), "--no-state"])
        #expect(pipe.status == 3 && pipe.standardError.contains("not a regular file"), "\(pipe.standardError)")
    }

    @Test func fetchReadsStandardInputOnlyOnceTheCommandLineIsGood() async throws {
        let twice = try await CommandRun.feedmerge(["fetch", "-", "-"], input: Data())
        #expect(twice.status == 2 && twice.standardError.contains("given twice"))
        let list = try await CommandRun.feedmerge(
            ["fetch", "-"], input: Data("# one\n\(server.url("/feed/1"))\n".utf8))
        #expect(list.status == 0 && list.standardOutput.hasPrefix(server.url("/feed/1") + "\t200\t"))
    }

    @Test func anUnreadableStateIsReportedWithItsPath() async throws {
        let w = try workspace("state-corrupt")
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: w.state))
        let run = try await CommandRun.feedmerge([server.url("/feed/1"), "-o", w.path("out.atom"), "--state", w.state])
        #expect(run.status == 74, "\(run.standardError)")
        #expect(run.standardError.contains(w.state))
        #expect(!FileManager.default.fileExists(atPath: w.path("out.atom")))
    }

    @Test func standardInputMayHoldAFeedAListOfURLsOrAnOPMLDocument() async throws {
        let feed =
            #"<rss version="2.0"><channel><title>Piped</title><link>http://p.example/</link>"#
            + #"<item><title>One</title><link>http://p.example/1</link></item></channel></rss>"#
        let fromFeed = try await CommandRun.feedmerge(
            ["-", "-o", "-", "--format", "json", "--no-state"], input: Data(feed.utf8))
        #expect(fromFeed.status == 0, "\(fromFeed.standardError)")
        #expect(fromFeed.standardOutput.contains("http://p.example/1"))

        let list = "# two feeds\n\(server.url("/feed/1"))\n\(server.url("/feed/2"))\n"
        let fromList = try await CommandRun.feedmerge(["-", "-o", "-", "--no-state"], input: Data(list.utf8))
        #expect(fromList.status == 0 && fromList.standardError.contains("2 feeds ok"), "\(fromList.standardError)")

        let opml = Data(try await HTTPClient().fetch(FetchRequest(url: server.url("/planet.opml"))).body)
        let fromOPML = try await CommandRun.feedmerge(
            ["-", "-o", "-", "--no-state", "--timeout", "2"], input: opml)
        #expect(fromOPML.standardError.contains("48 feeds ok, 0 not modified, 5 failed"), "\(fromOPML.standardError)")
    }

    @Test func anOPMLDocumentIsRecognisedByItsContentAtAnyURL() async throws {
        let run = try await CommandRun.feedmerge([
            server.url("/subscriptions"), "-o", "-", "--no-state", "--timeout", "2",
        ])
        #expect(!run.standardError.contains("<opml>"), "\(run.standardError)")
        #expect(run.standardError.contains("48 feeds ok, 0 not modified, 5 failed"), "\(run.standardError)")
    }

    @Test func aLocalFileIsRecognisedByItsContentToo() async throws {
        let w = try workspace("local-list")
        let opml = try await HTTPClient().fetch(FetchRequest(url: server.url("/planet.opml"))).body
        try Data(opml).write(to: URL(fileURLWithPath: w.path("subscriptions.xml")))
        let run = try await CommandRun.feedmerge([
            server.url("/feed/1"), w.path("subscriptions.xml"), "-o", "-", "--format", "rss", "--no-state",
            "--timeout", "2",
        ])
        // Feed 1 is listed by the OPML too: fetched once. The OPML head gives the RSS link.
        #expect(run.standardError.contains("48 feeds ok, 0 not modified, 5 failed"), "\(run.standardError)")
        #expect(run.standardOutput.contains("<link>http://planet.example/</link>"))
    }

    @Test func theRSSChannelLinkIsAlwaysAURL() async throws {
        let refused = try await CommandRun.feedmerge([
            server.url("/feed/1"), "-o", "-", "--format", "rss", "--no-state",
        ])
        #expect(refused.status == 2 && refused.standardError.contains("--link"))
        let given = try await CommandRun.feedmerge([
            server.url("/feed/1"), "-o", "-", "--format", "rss", "--no-state", "--link", "http://planet.example/",
        ])
        #expect(given.standardOutput.contains("<link>http://planet.example/</link>"))
        // From the OPML head (its ownerId) when --link is not given.
        let fromHead = try await CommandRun.feedmerge([
            server.url("/planet.opml"), "-o", "-", "--format", "rss", "--no-state", "--timeout", "2",
        ])
        #expect(fromHead.standardOutput.contains("<link>http://planet.example/</link>"))
        #expect(!fromHead.standardOutput.contains("urn:feedmerge"))
    }

    @Test func theSummaryCountsInWordsAndTheGeneratorNamesNoForeignAddress() async throws {
        let run = try await CommandRun.feedmerge([server.url("/feed/1"), "-o", "-", "--no-state"])
        #expect(run.standardError.contains("1 feed ok"), "\(run.standardError)")
        #expect(run.standardOutput.contains("<generator version="))
        #expect(!run.standardOutput.contains("github.com"))
    }
}
