import FeedFetch
import FeedModel
import FeedParse
import Foundation
import TestSupport
import Testing

/// The main command against a planet served from 127.0.0.1: 48 healthy
/// feeds in every format, shared entries, undated and future-dated ones,
/// and five broken feeds.
@Suite(.serialized) struct EndToEndTests {
    let server = PlanetServer.shared
    static let now = "2025-01-01T00:00:00Z"

    struct Outputs {
        var run: CommandRun
        var folder: URL
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        func bytes(_ name: String) throws -> [UInt8] {
            [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
        }
    }

    func merge(into folder: URL) async throws -> Outputs {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let run = try await CommandRun.feedmerge([
            server.url("/planet.opml"), "-o", folder.appendingPathComponent("planet.atom").path,
            "-o", folder.appendingPathComponent("planet.rss").path,
            "-o", folder.appendingPathComponent("planet.json").path,
            "--now", Self.now, "--timeout", "2", "--self-url", "http://planet.example/planet.atom", "--no-state",
        ])
        return Outputs(run: run, folder: folder)
    }

    static func temporaryFolder(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("feedmerge-e2e-\(getpid())-\(name)")
    }

    func expectedGroups() async throws -> [[String]] {
        let response = try await HTTPClient().fetch(FetchRequest(url: server.url("/expected.json")))
        return try JSONDecoder().decode([[String]].self, from: Data(response.body))
    }

    @Test func mergesEveryHealthyEntryOnceNewestFirstAndNamesTheBrokenFeeds() async throws {
        let outputs = try await merge(into: Self.temporaryFolder("one"))
        defer { try? FileManager.default.removeItem(at: outputs.folder) }
        #expect(outputs.run.status == 1, "\(outputs.run.standardError)")
        for path in ["/broken/404", "/broken/500", "/broken/notxml", "/broken/html", "/broken/hang"] {
            #expect(outputs.run.standardError.contains("failed: \(server.url(path))"), "\(path) not named")
        }
        let atom = try FeedParser.parse(try outputs.bytes("planet.atom"))
        let groups = try await expectedGroups()
        // every entry of the healthy feeds exactly once
        var groupOf: [String: Int] = [:]
        for (index, group) in groups.enumerated() { for id in group { groupOf[id] = index } }
        var seen = [Int](repeating: 0, count: groups.count)
        for entry in atom.entries {
            let group = try #require(groupOf[entry.id ?? ""], "unexpected entry \(entry.id ?? "nil")")
            seen[group] += 1
        }
        #expect(seen.allSatisfy { $0 == 1 }, "groups seen other than once: \(seen.enumerated().filter { $0.1 != 1 })")
        // newest first, no date after the run's time (future dates clamped)
        let dates = atom.entries.compactMap { $0.updated }
        #expect(dates.count == atom.entries.count)
        #expect(zip(dates, dates.dropFirst()).allSatisfy { $0 >= $1 })
        #expect(dates.first.map { $0.rfc3339 <= Self.now } == true)
        // provenance and folder category
        let document = String(decoding: try outputs.bytes("planet.atom"), as: UTF8.self)
        #expect(document.components(separatedBy: "<source>").count - 1 == atom.entries.count)
        #expect(atom.entries.allSatisfy { entry in entry.categories.contains { $0.term.hasPrefix("Group ") } })
    }

    @Test func secondRunWithTheSameNowIsByteIdentical() async throws {
        let first = try await merge(into: Self.temporaryFolder("first"))
        let second = try await merge(into: Self.temporaryFolder("second"))
        defer {
            try? FileManager.default.removeItem(at: first.folder)
            try? FileManager.default.removeItem(at: second.folder)
        }
        for name in ["planet.atom", "planet.rss", "planet.json"] {
            #expect(try first.bytes(name) == second.bytes(name), "\(name) differs between runs")
        }
    }

    @Test func everyOutputReadsBackToTheSameEntriesInTheSameOrder() async throws {
        let outputs = try await merge(into: Self.temporaryFolder("readback"))
        defer { try? FileManager.default.removeItem(at: outputs.folder) }
        func summary(_ name: String) throws -> [String] {
            let feed = try FeedParser.parse(try outputs.bytes(name))
            return feed.entries.map { entry in
                [
                    entry.title?.value ?? "", entry.link ?? "", entry.id ?? "",
                    (entry.published ?? entry.updated)?.rfc3339 ?? "",
                ]
                .joined(separator: "|")
            }
        }
        let atom = try summary("planet.atom")
        #expect(atom.count > 100)
        #expect(try summary("planet.rss") == atom)
        #expect(try summary("planet.json") == atom)
    }

    @Test func xmlOutputsReparseStrictly() async throws {
        let outputs = try await merge(into: Self.temporaryFolder("strict"))
        defer { try? FileManager.default.removeItem(at: outputs.folder) }
        for name in ["planet.atom", "planet.rss"] {
            let lint = ChildProcess()
            lint.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            lint.arguments = ["xmllint", "--noout", "--nonet", outputs.path(name)]
            try lint.run()
            await lint.exited()
            #expect(lint.terminationStatus == 0, "\(name) is not well-formed XML")
        }
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Runs a tool; returns its exit status and what it printed.
    static func tool(_ arguments: [String]) async throws -> (Int32, String) {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: await pipe.fileHandleForReading.readToEndOffPool(), as: UTF8.self)
        await process.exited()
        return (process.terminationStatus, output)
    }

    /// The RELAX NG schema of RFC 4287, written from the RFC (Schemas/atom.rng).
    @Test func atomOutputValidatesAgainstRFC4287() async throws {
        let outputs = try await merge(into: Self.temporaryFolder("relaxng"))
        defer { try? FileManager.default.removeItem(at: outputs.folder) }
        let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Schemas/atom.rng")
        let (status, output) = try await Self.tool([
            "xmllint", "--noout", "--relaxng", schema.path, outputs.path("planet.atom"),
        ])
        #expect(status == 0, "\(output)")
    }

    static let jsonFeedSchema = SharedCorpora.path("jsonfeed/schema-v1.1.json")

    /// The JSON Feed 1.1 schema is third-party data that only the team's
    /// machines and CI have (../shared); a user's clone skips this test.
    @Test(.tags(.corpus), .enabled(if: jsonFeedSchema != nil, "needs ../shared/corpora"))
    func jsonOutputValidatesAgainstTheJSONFeedSchema() async throws {
        let outputs = try await merge(into: Self.temporaryFolder("jsonschema"))
        defer { try? FileManager.default.removeItem(at: outputs.folder) }
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft7Validator(schema).validate(json.load(open(sys.argv[2])))
            print("valid")
            """
        let (status, output) = try await Self.tool([
            "python3", "-c", script, try #require(Self.jsonFeedSchema).path, outputs.path("planet.json"),
        ])
        #expect(status == 0 && output.contains("valid"), "\(output)")
    }

    @Test func rssOutputFollowsTheRSS2Rules() async throws {
        let outputs = try await merge(into: Self.temporaryFolder("rss"))
        defer { try? FileManager.default.removeItem(at: outputs.folder) }
        let rss = String(decoding: try outputs.bytes("planet.rss"), as: UTF8.self)
        let channelHead = try #require(rss.components(separatedBy: "<item>").first)
        for required in ["<title>", "<link>", "<description>"] { #expect(channelHead.contains(required)) }
        let items = rss.components(separatedBy: "<item>").dropFirst()
        #expect(!items.isEmpty)
        for item in items {
            #expect(item.components(separatedBy: "<enclosure").count <= 2, "more than one enclosure")
            #expect(item.contains("<guid isPermaLink="))
            let pubDate = try #require(
                item.components(separatedBy: "<pubDate>").dropFirst().first?.components(separatedBy: "</pubDate>").first
            )
            // RFC 822 as RSS wants it: "Wed, 01 Jan 2025 00:00:00 GMT"
            #expect(
                pubDate.range(
                    of: #"^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$"#,
                    options: .regularExpression) != nil, "\(pubDate)")
            #expect(DateParser.parse(pubDate) != nil)
        }
    }

    @Test func brokenOPMLExitsTwoWithFileAndLine() async throws {
        let file = Self.temporaryFolder("broken").appendingPathExtension("opml")
        try Data(
            "<?xml version=\"1.0\"?>\n<opml version=\"2.0\">\n<body>\n<outline xmlUrl=\"x\">\n</body></opml>\n".utf8
        )
        .write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try await CommandRun.feedmerge([file.path, "-o", "-", "--format", "atom", "--no-state"])
        #expect(run.status == 2)
        #expect(run.standardError.contains("\(file.path):5:"), "\(run.standardError)")
        #expect(run.standardOutput.isEmpty)
    }

    @Test func everyFeedFailingLeavesThePreviousOutputAndExitsThree() async throws {
        let folder = Self.temporaryFolder("kept")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.atom")
        try Data("previous".utf8).write(to: output)
        let run = try await CommandRun.feedmerge([
            server.url("/broken/404"), server.url("/broken/html"), "-o", output.path, "--no-state",
        ])
        #expect(run.status == 3)
        #expect(try Data(contentsOf: output) == Data("previous".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out.atom"])
    }

    @Test func usageErrorsExitTwo() async throws {
        #expect(try await CommandRun.feedmerge([server.url("/feed/1"), "-o", "out.xml", "--no-state"]).status == 2)  // format unknown
        #expect(try await CommandRun.feedmerge([server.url("/feed/1"), "--no-state"]).status == 2)  // no output
        #expect(try await CommandRun.feedmerge(["/no/such.opml", "-o", "x.atom", "--no-state"]).status == 2)
        // Outputs are written at once: one destination twice is refused before anything runs.
        let twice = try await CommandRun.feedmerge([
            server.url("/feed/1"), "-o", "-", "-o", "-", "--format", "rss", "--no-state",
        ])
        #expect(twice.status == 2)
        #expect(twice.standardError.contains("twice"))
    }

    @Test func sourceDateEpochFixesTheRunTime() async throws {
        let a = try await CommandRun.feedmerge(
            [server.url("/feed/0"), "-o", "-", "--format", "json", "--no-state"],
            environment: ["SOURCE_DATE_EPOCH": "1735689600"])
        let b = try await CommandRun.feedmerge([
            server.url("/feed/0"), "-o", "-", "--format", "json", "--now", Self.now, "--no-state",
        ])
        #expect(a.status == 0)
        #expect(a.standardOutput == b.standardOutput)
    }
}
