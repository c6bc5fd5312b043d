import Foundation
import TestSupport
import Testing

/// A downloaded Venus theme (SECURITY.md, line 6): its `config.ini`
/// describes the theme and nothing else, and nothing it ships (a link, a
/// name with `..`, an absolute folder) brings a file from outside into the
/// web root or the page. Real files, links and `feedmerge planet` runs.
@Suite(.serialized) struct ThemeConfinementTests {
    static let server = PlanetServer.hostile
    var server: LocalServer { Self.server }

    /// A planet (config.ini, its output in `out`), its theme in
    /// `themes/evil`, and the operator's private folder beside them.
    final class Planet {
        let w: StateTests.Workspace
        var theme: String { w.path("themes/evil") }
        var output: String { w.path("out") }
        var privateFolder: String { w.path("private") }
        static let key = "PRIVATE KEY \(getpid())"
        static let notes = "PRIVATE NOTES \(getpid())"
        static let token = "TOKEN \(getpid())"

        /// - Parameters:
        ///   - planet: more lines of the planet's `[Planet]` section.
        ///   - sections: what follows it (by default, one subscription to `feed`, named Plain).
        init(_ name: String, feed: String, planet: String = "", sections: String? = nil) throws {
            w = try StateTests.Workspace("theme-\(name)")
            for folder in [theme + "/inc", privateFolder, w.path("themes/common")] {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            }
            try write(privateFolder + "/id_rsa", Self.key)
            try write(privateFolder + "/token.txt", Self.token)
            try write(
                privateFolder + "/notes.xml",
                "<rss version=\"2.0\"><channel><title>Notes</title><item><title>\(Self.notes)</title>"
                    + "<link>http://notes.example/1</link></item></channel></rss>")
            try write(
                w.path("config.ini"),
                """
                [Planet]
                name = Test planet
                link = http://planet.example/
                output_theme = themes/evil
                output_dir = out
                cache_directory = cache
                \(planet)

                \(sections ?? "[\(feed)]\nname = Plain\n")
                """)
            try write(w.path("themes/common/shared.css"), "body { color: black }")
        }

        func write(_ path: String, _ text: String) throws {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        }

        func link(_ path: String, to destination: String) throws {
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: destination)
        }

        func run() async throws -> CommandRun {
            try await CommandRun.feedmerge(["planet", "--now", "2026-12-01T00:00:00Z", w.path("config.ini")])
        }

        /// Every file under the output folder, with its content (links are reported as links).
        func published() throws -> [String: String] {
            var files: [String: String] = [:]
            guard let walk = FileManager.default.enumerator(atPath: output) else { return files }
            for case let name as String in walk {
                let path = output + "/" + name
                let kind = try FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType
                if kind == .typeSymbolicLink {
                    files[name] = "a link"
                } else if kind == .typeRegular {
                    files[name] = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
                }
            }
            return files
        }
    }

    static let page = """
        <html><body><TMPL_LOOP Items><p><TMPL_VAR title></p></TMPL_LOOP>
        <TMPL_LOOP Channels><li><TMPL_VAR name></li></TMPL_LOOP></body></html>
        """

    @Test func aThemesConfigurationReachesNothingOutsideTheTheme() async throws {
        let p = try Planet("config", feed: server.url("/feed.xml"))
        try p.write(p.theme + "/index.html.tmpl", Self.page)
        try p.write(p.theme + "/style.css", "p { color: red }")
        try p.write(
            p.theme + "/config.ini",
            """
            [Planet]
            template_files = index.html.tmpl
            template_directories = \(p.privateFolder) ../../private ../common
            bill_of_materials = style.css id_rsa shared.css ../../private/token.txt
            output_dir = \(p.w.path("stolen"))
            cache_directory = \(p.w.path("stolen-cache"))
            filters = nothing.xslt

            [file://\(p.privateFolder)/notes.xml]
            name = Notes
            """)
        let run = try await p.run()
        #expect(run.status == 0, "\(run.standardError)")
        let files = try p.published()
        // What describes the theme is used: its template, its own file and one from ../common.
        #expect(files["index.html"]?.contains("Plain entry") == true, "\(files.keys.sorted())")
        #expect(files["style.css"] == "p { color: red }" && files["shared.css"] == "body { color: black }")
        // Nothing else: no private file published, no local subscription, no other output or cache folder.
        for (name, content) in files {
            for secret in [Planet.key, Planet.notes, Planet.token] { #expect(!content.contains(secret), "\(name)") }
        }
        #expect(files["id_rsa"] == nil && files["index.html"]?.contains("Notes") == false)
        #expect(!FileManager.default.fileExists(atPath: p.w.path("stolen")))
        #expect(!FileManager.default.fileExists(atPath: p.w.path("stolen-cache")))
        for said in [
            "output_dir is not used", "cache_directory is not used", "filters is not used",
            "[file://\(p.privateFolder)/notes.xml] (a subscription", "template_directories \(p.privateFolder)",
            "template_directories ../../private",
        ] {
            #expect(run.standardError.contains(said), "\(said): \(run.standardError)")
        }
    }

    @Test func linksAThemeShipsPublishNothingFromOutside() async throws {
        let p = try Planet("links", feed: server.url("/feed.xml"))
        try p.write(p.theme + "/index.html.tmpl", Self.page)
        try p.link(p.theme + "/style.css", to: p.privateFolder + "/token.txt")
        try p.link(p.theme + "/root", to: "/")
        try p.write(
            p.theme + "/config.ini",
            """
            [Planet]
            template_files = index.html.tmpl
            bill_of_materials = style.css root\(p.privateFolder)/id_rsa
            """)
        let run = try await p.run()
        #expect(run.status == 0, "\(run.standardError)")
        let files = try p.published()
        #expect(files["index.html"]?.contains("Plain entry") == true, "\(files.keys.sorted())")
        #expect(files["style.css"] == nil, "\(files["style.css"] ?? "")")
        #expect(!files.keys.contains { $0.hasPrefix("root") }, "\(files.keys.sorted())")
        for (name, content) in files {
            #expect(!content.contains(Planet.key) && !content.contains(Planet.token) && content != "a link", "\(name)")
        }
        #expect(run.standardError.contains("bill_of_materials: style.css is in none of the template directories"))
    }

    @Test func aLinkInTheIncludeFolderIncludesNothingFromOutside() async throws {
        let p = try Planet("include", feed: server.url("/feed.xml"))
        try p.link(p.theme + "/inc/root", to: "/")
        try p.link(p.theme + "/inc/key.tmpl", to: p.privateFolder + "/id_rsa")
        for include in ["root\(p.privateFolder)/id_rsa", "key.tmpl", "../../../private/id_rsa"] {
            try p.write(p.theme + "/index.html.tmpl", "<html><TMPL_INCLUDE \(include)></html>")
            try p.write(p.theme + "/config.ini", "[Planet]\ntemplate_files = index.html.tmpl\n")
            let run = try await p.run()
            #expect(run.status == 2, "\(include): \(run.standardError)")
            #expect(run.standardError.contains("cannot be read"), "\(include): \(run.standardError)")
            #expect(!run.standardError.contains(Planet.key))
            #expect(!(try p.published().values.contains { $0.contains(Planet.key) }))
        }
    }
}
