import Foundation
import TestSupport
import Testing

/// A Planet 2.0 site's `encoding` and `locale`, per template, on a real run:
/// `xml` writes ASCII with character references, a character set writes its
/// bytes with `?` for what it cannot hold, and a locale names the days and
/// months of `date_format` while `_822` and `_iso` stay English.
@Suite struct Planet2OutputTests {
    static let feed = """
        <rss version="2.0"><channel><title>Gaël's ☃</title><link>http://example.org/</link>
        <item><title>Über ☃</title><link>http://example.org/1</link>
        <pubDate>Mon, 02 Nov 2020 10:00:00 GMT</pubDate></item></channel></rss>
        """

    /// A site with one local feed and the templates `index.html.tmpl` and `latin.html.tmpl`.
    func site(_ name: String, _ planet: String) throws -> StateTests.Workspace {
        let w = try StateTests.Workspace("planet2-\(name)")
        let template = "<p><TMPL_LOOP Items><TMPL_VAR title>|<TMPL_VAR date>|<TMPL_VAR date_822></TMPL_LOOP></p>\n"
        for file in ["index.html.tmpl", "latin.html.tmpl"] {
            try template.write(toFile: w.path(file), atomically: true, encoding: .utf8)
        }
        try Self.feed.write(toFile: w.path("feed.xml"), atomically: true, encoding: .utf8)
        try """
        [Planet]
        name = Two
        link = http://planet.example/
        template_files = index.html.tmpl latin.html.tmpl
        output_dir = out
        cache_directory = cache
        date_format = %A %d %B %Y
        \(planet)

        [feed.xml]
        name = One
        """.write(toFile: w.path("config.ini"), atomically: true, encoding: .utf8)
        return w
    }

    func run(_ w: StateTests.Workspace, environment: [String: String] = [:]) async throws -> CommandRun {
        try await CommandRun.feedmerge(
            ["planet", "--now", "2024-12-01T00:00:00Z", "config.ini"], environment: environment,
            workingDirectory: w.path(""))
    }

    @Test func encodingWritesCharacterReferencesOrTheCharacterSet() async throws {
        let w = try site("encoding", "encoding = xml\n\n[latin.html.tmpl]\nencoding = iso-8859-1")
        let run = try await run(w)
        #expect(run.status == 0, "\(run.standardError)")
        let ascii = try Data(contentsOf: URL(fileURLWithPath: w.path("out/index.html")))
        #expect(ascii.allSatisfy { $0 < 0x80 }, "ASCII only")
        #expect(
            String(decoding: ascii, as: UTF8.self)
                == "<p>&#220;ber &#9731;|Monday 02 November 2020|Mon, 02 Nov 2020 10:00:00 +0000</p>\n")
        let latin = try Data(contentsOf: URL(fileURLWithPath: w.path("out/latin.html")))
        #expect(String(data: latin, encoding: .isoLatin1)?.hasPrefix("<p>Über ?|Monday") == true)
        #expect(latin.contains(0xDC), "Ü as one ISO-8859-1 byte")
    }

    /// A German locale compiled for the test (`localedef`, from the Debian `locales`
    /// sources), or nil when this machine cannot make one. Waits for localedef on this thread: a
    /// lazy static's initializer cannot be async.
    static let germanLocales: String? = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("feedmerge-locales-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        guard let localedef = ExternalProgram("localedef") else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: localedef.path)
        process.arguments = ["-i", "de_DE", "-f", "UTF-8", folder.appendingPathComponent("de_DE.UTF-8").path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        process.waitUntilExit()
        // localedef exits 1 on warnings it still writes the locale for.
        let made = FileManager.default.fileExists(atPath: folder.appendingPathComponent("de_DE.UTF-8/LC_TIME").path)
        return made ? folder.path : nil
    }()

    @Test(
        .enabled(
            if: germanLocales != nil,
            "needs localedef and the de_DE locale source (Debian package locales; scripts/setup --test)"))
    func localeNamesDaysAndMonthsAndTheFeedDatesStayEnglish() async throws {
        let w = try site("locale", "[index.html.tmpl]\nlocale = xx_YY.UTF-8:de_DE.UTF-8")
        let run = try await run(w, environment: ["LOCPATH": Self.germanLocales!])
        #expect(run.status == 0, "\(run.standardError)")
        let page = try String(contentsOfFile: w.path("out/index.html"), encoding: .utf8)
        #expect(page == "<p>Über ☃|Montag 02 November 2020|Mon, 02 Nov 2020 10:00:00 +0000</p>\n", "\(page)")
        let english = try String(contentsOfFile: w.path("out/latin.html"), encoding: .utf8)
        #expect(english.contains("|Monday 02 November 2020|"), "a template without locale: \(english)")
    }

    @Test func aLocaleTheMachineLacksIsNamedAndDatesStayEnglish() async throws {
        let w = try site("no-locale", "locale = xx_YY.UTF-8")
        let run = try await run(w)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("locale xx_YY.UTF-8"), "\(run.standardError)")
        let page = try String(contentsOfFile: w.path("out/index.html"), encoding: .utf8)
        #expect(page.contains("|Monday 02 November 2020|"), "\(page)")
    }

    /// `-v` names a template's output by what it is: HTML where its name says so, else made by
    /// its template (an RSS template's `rss20.xml` is not HTML).
    @Test func verboseNamesWhatEachTemplateWrote() async throws {
        let w = try site("verbose", "")
        try FileManager.default.moveItem(atPath: w.path("latin.html.tmpl"), toPath: w.path("rss20.xml.tmpl"))
        let config = try String(contentsOfFile: w.path("config.ini"), encoding: .utf8)
        try config.replacingOccurrences(of: "latin.html.tmpl", with: "rss20.xml.tmpl")
            .write(toFile: w.path("config.ini"), atomically: true, encoding: .utf8)
        let run = try await CommandRun.feedmerge(
            ["planet", "-v", "--now", "2024-12-01T00:00:00Z", "config.ini"], workingDirectory: w.path(""))
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("out/index.html (html)"), "\(run.standardError)")
        #expect(run.standardError.contains("out/rss20.xml (made by its template)"), "\(run.standardError)")
    }
}
