import Foundation
import Testing

@testable import VenusConfig

/// A configuration resolved as Venus resolves it: theme, templates, bill
/// of materials, subscriptions, reading lists, per-template options.
@Suite struct VenusConfigurationTests {
    /// A folder with files, removed when the test ends.
    final class Folder {
        let path: String
        init() throws {
            path = NSTemporaryDirectory() + "venus-config-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        func write(_ name: String, _ text: String) throws {
            let file = path + "/" + name
            try FileManager.default.createDirectory(
                atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: file, atomically: true, encoding: .utf8)
        }
    }

    /// A theme folder as Venus's are: templates, a config.ini, files to copy, a common folder beside it.
    func theme(in folder: Folder) throws {
        try folder.write(
            "themes/fancy/config.ini",
            """
            [Planet]
            template_files:
              index.html.tmpl
              atom.xml.xslt
            template_directories:
              ../common
            bill_of_materials:
              planet.css
              images/logo.png
            items_per_page = 30
            """)
        try folder.write("themes/fancy/index.html.tmpl", "<TMPL_VAR name>")
        try folder.write("themes/fancy/planet.css", "body{}")
        try folder.write("themes/common/atom.xml.xslt", "<x/>")
        try folder.write("themes/common/images/logo.png", "png")
        try folder.write("themes/common/images/jdub.png", "png")
    }

    @Test func theThemesConfigurationIsMergedUnderThePlanets() throws {
        let folder = try Folder()
        try theme(in: folder)
        try folder.write("site/extra.css", "x")
        try folder.write(
            "site/config.ini",
            """
            [Planet]
            name = Planet Test
            link = http://planet.example/
            output_theme = fancy
            output_dir = www
            items_per_page = 20
            bill_of_materials:
              extra.css
              images/#{face}
            spider_threads = 4

            [DEFAULT]
            facewidth = 65

            [index.html.tmpl]
            items_per_page = 5
            days_per_page = 2

            [http://example.org/a.xml]
            name = Jeff
            face = jdub.png

            [http://example.org/b.xml]
            name = Edd
            face = missing.png

            [http://example.org/list.opml]
            content_type = opml
            """)
        let config = try VenusConfiguration.load(
            folder.path + "/site/config.ini", themeFolders: [folder.path + "/themes"])
        #expect(config.themeFolder == folder.path + "/themes/fancy")
        #expect(config.planet["name"] == "Planet Test")
        #expect(config.templates.map(\.name) == ["index.html.tmpl", "atom.xml.xslt"])
        #expect(
            config.templates.map(\.path) == [
                folder.path + "/themes/fancy/index.html.tmpl", folder.path + "/themes/common/atom.xml.xslt",
            ])
        #expect(
            config.templates.map(\.outputPath) == [
                folder.path + "/site/www/index.html", folder.path + "/site/www/atom.xml",
            ])
        #expect(config.templates.map(\.language) == ["tmpl", "xslt"])
        // A template's own section, else [Planet] (the planet's over the theme's).
        #expect(config.templates.map(\.itemsPerPage) == [5, 20])
        #expect(config.templates.map(\.daysPerPage) == [2, 0])
        #expect(config.subscriptions.map(\.url) == ["http://example.org/a.xml", "http://example.org/b.xml"])
        #expect(config.subscriptions[0].options["name"] == "Jeff")
        #expect(config.subscriptions[0].options["facewidth"] == "65", "[DEFAULT] reaches each feed")
        #expect(config.readingLists.map(\.url) == ["http://example.org/list.opml"])
        // The theme's files, then the planet's; #{face} once per feed that sets it, when the file is there.
        #expect(
            config.billOfMaterials.map(\.target) == ["planet.css", "images/logo.png", "extra.css", "images/jdub.png"])
        #expect(config.billOfMaterials[3].source == folder.path + "/themes/common/images/jdub.png")
        #expect(config.warnings.contains { $0.contains("images/missing.png") })
        #expect(config.warnings.contains { $0.contains("spider_threads") })
        #expect(config.feedURL == "http://planet.example/atom.xml")
        #expect(config.cacheFolder == folder.path + "/site/cache")
    }

    @Test func sectionsNamedAsTemplatesOrFiltersAreNotSubscriptions() throws {
        let folder = try Folder()
        try folder.write("index.html.xslt", "<x/>")
        try folder.write(
            "config.ini",
            """
            [Planet]
            template_files = index.html.xslt
            filters = excerpt.py xpath_sifter.py?require=//atom:category%5B%40term%3D%27two%27%5D
            [excerpt.py]
            width = 300
            [index.html.xslt]
            filters = mememe.plugin
            [mememe.plugin]
            sidebar = //*[@id="footer"]
            [http://example.org/feed]
            name = Feed
            filters = detitle.xslt
            """)
        let config = try VenusConfiguration.load(folder.path + "/config.ini")
        #expect(config.subscriptions.map(\.url) == ["http://example.org/feed"])
        #expect(config.planetFilters.map(\.name) == ["excerpt.py", "xpath_sifter.py"])
        #expect(config.planetFilters[0].options == ["width": "300"])
        #expect(config.planetFilters[1].options == ["require": "//atom:category[@term='two']"])
        #expect(config.subscriptions[0].filters.map(\.name) == ["detitle.xslt"])
        #expect(config.templates[0].filters == ["mememe.plugin"])
        #expect(config.templates[0].itemsPerPage == 60, "Venus's default")
    }

    @Test func aFilterReferenceReadsBackWhatItWrites() {
        let reference = VenusConfiguration.FilterReference(
            name: "regexp_sifter.py", options: ["require": "a b&c=d", "exclude": "x\ny"])
        #expect(VenusConfiguration.FilterReference(reference.text) == reference)
        #expect(VenusConfiguration.FilterReference("xpath_sifter.py?atom%3Atitle").options == ["require": "atom:title"])
    }

    @Test func whatCannotBeUsedIsSaidClearly() throws {
        let folder = try Folder()
        try folder.write("none.ini", "[http://example.org/feed]\nname = x\n")
        try folder.write("theme.ini", "[Planet]\noutput_theme = nowhere\n")
        try folder.write("template.ini", "[Planet]\ntemplate_files = missing.html.tmpl\n")
        try folder.write("number.ini", "[Planet]\ntemplate_files = t.xslt\nitems_per_page = many\n")
        try folder.write("t.xslt", "<x/>")
        func failure(_ name: String) -> String? {
            do {
                _ = try VenusConfiguration.load(folder.path + "/" + name)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(failure("none.ini")?.contains("no [Planet] section") == true)
        #expect(failure("theme.ini")?.contains("output_theme nowhere: no such theme") == true)
        #expect(failure("template.ini")?.contains("template missing.html.tmpl is in none of") == true)
        #expect(failure("number.ini")?.contains("items_per_page = many is not a whole number") == true)
        #expect(failure("absent.ini")?.contains("does not exist") == true)
    }
}
