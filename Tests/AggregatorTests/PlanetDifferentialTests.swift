import Foundation
import TestSupport
import Testing

/// feedmerge beside the real programs: Planet Venus and Planet 2.0 run under
/// Python 2.7 on the same configuration, the same served feeds and the same
/// clock as `feedmerge planet`, and every page and feed each writes is
/// compared entry by entry (order, titles, links, dates as shown, names,
/// subscription lists and their marks). A difference is feedmerge's to
/// explain: docs/venus.md lists the improvements on crashes and malformed
/// output. Each case's full report is also written to
/// `$TMPDIR/feedmerge-differential/CASE.txt`, both sides' outputs in `CASE/`.
@Suite(.serialized, .tags(.slow, .corpus, .externalProgram), .fullTier)
struct PlanetDifferentialTests {
    /// Real captures of every family: RSS 2.0, Atom, RSS 1.0 and 0.92; undated
    /// entries; HTML and entities in titles; non-ASCII text in several encodings.
    static let feeds: [(path: String, options: String)] = [
        ("miniflux__v2/small_atom.xml", "name = Ga&#235;l Varoquaux\nface = gael.png\n"),
        ("Ranchero-Software__RSParser/489.rss", "name = Jürgen Fünf\n"),
        ("Ranchero-Software__RSParser/bio.rdf", "name = bioRxiv &amp; Friends\nface = bio.png\nfacewidth = 40\n"),
        ("feedjira__feedjira/google_alerts_atom.xml", ""),
        ("rbren__rss-parser/craigslist.rss", "name = <b>Craigslist</b>\n"),
        ("rbren__rss-parser/heise.atom", "name = heise online\n"),
        ("miniflux__v2/encoding_WINDOWS-1251.xml", ""),
        ("rometools__rome/test1.xml", "name = Undated Videos\n"),
        ("rbren__rss-parser/heraldsun.rss", ""),
        ("feedjira__feedjira/SamRuby.xml", "name = Sam Ruby\nface = rubys.png\n"),
        ("Ranchero-Software__RSParser/EMarley.rss", ""),
        ("rometools__rome/slashdot.xml", "name = Slashdot\n"),
        ("nmdias__FeedKit/Ampersand.xml", "name = Ampersand &amp; Co\n"),
        ("feedjira__feedjira/pet_atom.xml", ""),
    ]

    /// The subscription sections, each feed's URL on the test server.
    static func subscriptions(_ feeds: ArraySlice<(path: String, options: String)> = feeds[...]) -> String {
        feeds.map { "[\(PlanetDifferential.server.url("/" + $0.path))]\n\($0.options)" }.joined(separator: "\n")
    }

    static let planetSection = """
        [Planet]
        name = Planet Differential
        link = http://planet.example/
        owner_name = Ops Person
        owner_email = ops@planet.example
        cache_directory = cache
        log_level = WARNING
        feed_timeout = 20

        """

    /// Venus configurations: each theme, with the `[Planet]` options that shape a page.
    static var venusCases: [String: String] {
        [
            "venus-classic_fancy": planetSection + """
                output_dir = www
                output_theme = classic_fancy
                items_per_page = 60
                activity_threshold = 2000
                date_format = %d %b %Y, %H:%M
                new_date_format = %A %d %B %Y

                [DEFAULT]
                facewidth = 65
                faceheight = 85

                \(subscriptions())
                """,
            "venus-asf": planetSection + """
                output_dir = www
                output_theme = asf
                items_per_page = 40
                activity_threshold = 1500

                \(subscriptions())
                """,
            "venus-musings": planetSection + """
                output_dir = www
                output_theme = musings
                days_per_page = 3

                \(subscriptions())
                """,
            "venus-mobile": planetSection + """
                output_dir = www
                output_theme = mobile
                items_per_page = 30

                [index.html.xslt]
                items_per_page = 15

                \(subscriptions(feeds[4...]))
                """,
        ]
    }

    /// Planet 2.0 configurations: a site root with `code/`, `config/config.ini` and
    /// htmltmpl templates named relative to the root, as planet.python.org runs it.
    static var planet2Cases: [String: String] {
        [
            "planet2-fancy": planetSection + """
                template_files = config/index.html.tmpl config/rss20.xml.tmpl config/rss10.xml.tmpl \
                config/opml.xml.tmpl config/foafroll.xml.tmpl
                output_dir = output
                items_per_page = 60
                activity_threshold = 2000
                date_format = %B %d, %Y %I:%M %p
                new_date_format = %B %d, %Y

                [DEFAULT]
                facewidth = 65
                faceheight = 85

                \(subscriptions())
                """,
            "planet2-capped": planetSection + """
                template_files = config/index.html.tmpl config/rss20.xml.tmpl config/opml.xml.tmpl
                output_dir = output
                days_per_page = 4
                new_feed_items = 5

                [config/rss20.xml.tmpl]
                items_per_page = 12

                \(subscriptions(feeds[..<10]))
                """,
        ]
    }

    static let reports = FileManager.default.temporaryDirectory.appendingPathComponent("feedmerge-differential")

    @Test(
        .enabled(if: PlanetDifferential.skip == nil, "\(PlanetDifferential.skip ?? "")"),
        arguments: ["venus-asf", "venus-classic_fancy", "venus-mobile", "venus-musings"])
    func venusAndFeedmergeShowTheSame(name: String) async throws {
        let w = try StateTests.Workspace("differential-\(name)")
        for side in ["venus", "feedmerge"] {
            try FileManager.default.createDirectory(atPath: w.path(side), withIntermediateDirectories: true)
            try Self.venusCases[name]!.write(toFile: w.path("\(side)/config.ini"), atomically: true, encoding: .utf8)
        }
        let venus = try await PlanetDifferential.runPython(
            PlanetDifferential.venus!.appendingPathComponent("planet.py").path, "config.ini", in: w.path("venus"))
        try #require(venus.status == 0, "Venus failed: \(venus.output)")
        let ours = try await PlanetDifferential.runFeedmerge("config.ini", in: w.path("feedmerge"), venus: true)
        try await compare(name, reference: "Venus", w.path("venus/www"), w.path("feedmerge/www"), run: ours)
    }

    @Test(
        .enabled(if: PlanetDifferential.skip == nil, "\(PlanetDifferential.skip ?? "")"),
        arguments: ["planet2-capped", "planet2-fancy"])
    func planet2AndFeedmergeShowTheSame(name: String) async throws {
        let w = try StateTests.Workspace("differential-\(name)")
        for side in ["planet2", "feedmerge"] {
            let site = w.path(side)
            try FileManager.default.createDirectory(atPath: site + "/config", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: site + "/output", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                atPath: site + "/code", withDestinationPath: PlanetDifferential.planet2!.path)
            let templates = PlanetDifferential.fixtures.appendingPathComponent("planet2")
            for template in try FileManager.default.contentsOfDirectory(atPath: templates.path) {
                try FileManager.default.copyItem(
                    atPath: templates.appendingPathComponent(template).path, toPath: site + "/config/" + template)
            }
            try Self.planet2Cases[name]!.write(toFile: site + "/config/config.ini", atomically: true, encoding: .utf8)
        }
        let planet = try await PlanetDifferential.runPython(
            "code/planet.py", "config/config.ini", in: w.path("planet2"))
        try #require(planet.status == 0, "Planet 2.0 failed: \(planet.output)")
        let ours = try await PlanetDifferential.runFeedmerge("config/config.ini", in: w.path("feedmerge"), venus: false)
        try await compare(
            name, reference: "Planet 2.0", w.path("planet2/output"), w.path("feedmerge/output"), run: ours)
    }

    /// Compares every page and feed the reference program wrote with feedmerge's of the same name.
    func compare(_ name: String, reference: String, _ theirs: String, _ ours: String, run: PlanetDifferential.Outcome)
        async throws
    {
        let written = try FileManager.default.contentsOfDirectory(atPath: theirs)
            .filter { $0.hasSuffix(".html") || $0.hasSuffix(".xml") }.sorted()
        try #require(!written.isEmpty, "\(reference) wrote nothing")
        var report = DifferentialReport(reference: reference, documented: try Self.documented())
        for file in written {
            let feedmerge = await PlanetDifferential.view(ours + "/" + file)
            let referenceView = await PlanetDifferential.view(theirs + "/" + file)
            report.compare(file: file, feedmerge: feedmerge, reference: referenceView)
        }
        let header = "feedmerge exited \(run.status)\(run.output.isEmpty ? "" : ":\n" + run.output)"
        try FileManager.default.createDirectory(at: Self.reports, withIntermediateDirectories: true)
        // Both sides' outputs beside the report, to look at.
        let kept = Self.reports.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: kept)
        try FileManager.default.createDirectory(at: kept, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: theirs, toPath: kept.appendingPathComponent(reference).path)
        try FileManager.default.copyItem(atPath: ours, toPath: kept.appendingPathComponent("feedmerge").path)
        try (header + "\n" + report.setAsideText + "\n" + (report.isEmpty ? "no differences" : report.text) + "\n")
            .write(to: Self.reports.appendingPathComponent("\(name).txt"), atomically: true, encoding: .utf8)
        #expect(run.status <= 1, "\(name): \(header)")
        #expect(report.isEmpty, "\(name): what a reader sees differs from \(reference)'s:\n\(report.text)")
    }

    /// The differences docs/venus.md lists ("What differs"), made from the served feeds themselves.
    static func documented() throws -> DifferentialReport.Documented {
        var documented = DifferentialReport.Documented()
        let corpus = SharedCorpora.path("realworld")!
        for (path, options) in feeds {
            let served = PlanetDifferential.server.url("/" + path)
            let text = try String(contentsOf: corpus.appendingPathComponent(path), encoding: .isoLatin1)
            if options.contains("name =") { documented.named.insert(served) }
            // RSS 0.92 items: an item without guid is identified by its enclosure in both old programs.
            guard text.contains("<rss version=\"0.92\"") else { continue }
            documented.undatableFeed = served
            for item in text.components(separatedBy: "<item>").dropFirst() {
                guard let link = Self.element("link", in: item) else { continue }
                documented.undatableFeedEntries.insert(link)
                if !item.contains("<guid"), item.contains("<enclosure") { documented.enclosureIdentified.insert(link) }
            }
        }
        return documented
    }

    private static func element(_ name: String, in text: String) -> String? {
        guard let start = text.range(of: "<\(name)>"),
            let end = text.range(of: "</\(name)>", range: start.upperBound..<text.endIndex)
        else { return nil }
        return text[start.upperBound..<end.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
