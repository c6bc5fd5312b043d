import Testing

@testable import VenusConfig

/// The syntax Venus's config.ini is written in (Python's ConfigParser).
@Suite struct INIFileTests {
    func read(_ text: String) throws -> INIFile {
        var file = INIFile()
        try file.read(text, file: "test.ini")
        return file
    }

    @Test func sectionsOptionsAndBothSeparators() throws {
        let ini = try read(
            """
            [Planet]
            name = My Planet
            Link: http://example.org/
            empty =
            quoted = ""

            [http://example.org/feed]
            name=Someone
            """)
        #expect(ini.sections == ["Planet", "http://example.org/feed"])
        #expect(try ini.value("name", in: "Planet") == "My Planet")
        #expect(try ini.value("link", in: "Planet") == "http://example.org/", "keys are lowercased")
        #expect(try ini.value("LINK", in: "Planet") == "http://example.org/")
        #expect(try ini.value("empty", in: "Planet") == "")
        #expect(try ini.value("quoted", in: "Planet") == "", "a value of two quotes is empty")
        #expect(try ini.value("name", in: "http://example.org/feed") == "Someone")
        #expect(try ini.value("missing", in: "Planet") == nil)
    }

    @Test func indentedLinesContinueTheOptionAbove() throws {
        let ini = try read(
            """
            [Planet]
            template_files:
              atom.xml.xslt
                index.html.tmpl

            bill_of_materials: a.css
              images/b.png
            name = x
            """)
        #expect(try ini.value("template_files", in: "Planet") == "atom.xml.xslt\nindex.html.tmpl")
        #expect(try ini.value("bill_of_materials", in: "Planet") == "a.css\nimages/b.png")
        #expect(try ini.value("name", in: "Planet") == "x")
    }

    @Test func commentsWholeLineAndAfterAValue() throws {
        let ini = try read(
            """
            # a comment
            ; another
            rem also a comment
            [Planet]
            name = Planet ; the name
            link = http://example.org/a;b
            # name = not this
            """)
        #expect(try ini.value("name", in: "Planet") == "Planet", "; after whitespace starts a comment")
        #expect(try ini.value("link", in: "Planet") == "http://example.org/a;b", "; inside a value stays")
        #expect(ini.keys(in: "Planet") == ["name", "link"])
    }

    @Test func defaultsReachEverySectionAndASectionOverridesThem() throws {
        let ini = try read(
            """
            [Planet]
            name = P
            [DEFAULT]
            facewidth = 65
            faceheight = 85
            [feed]
            faceheight = 80
            """)
        #expect(!ini.sections.contains("DEFAULT"))
        #expect(try ini.value("facewidth", in: "feed") == "65")
        #expect(try ini.value("faceheight", in: "feed") == "80")
        #expect(try ini.value("facewidth", in: "Planet") == "65")
        #expect(ini.keys(in: "feed") == ["faceheight", "facewidth"])
        #expect(ini.ownKeys(in: "feed") == ["faceheight"])
    }

    @Test func interpolationAsConfigParserGetDoesIt() throws {
        let ini = try read(
            """
            [DEFAULT]
            root = /srv/planet
            [Planet]
            cache_directory = %(root)s/cache
            output_dir = %(ROOT)s/www
            percent = 100%% sure %(root)s
            alone = 50%
            nested = %(cache_directory)s/x
            broken = %(nowhere)s
            """)
        #expect(try ini.value("cache_directory", in: "Planet") == "/srv/planet/cache")
        #expect(try ini.value("output_dir", in: "Planet") == "/srv/planet/www")
        #expect(try ini.value("percent", in: "Planet") == "100% sure /srv/planet")
        #expect(try ini.value("alone", in: "Planet") == "50%", "no %( : the value as written")
        #expect(try ini.value("nested", in: "Planet") == "/srv/planet/cache/x")
        #expect(throws: INIFile.ParseError.self) { try ini.value("broken", in: "Planet") }
        #expect(ini.raw("broken", in: "Planet") == "%(nowhere)s")
    }

    @Test func aLaterFileOrARepeatedSectionOverrides() throws {
        var ini = try read("[Planet]\nname = theme\nitems_per_page = 10\n[Planet]\nlink = l\n")
        try ini.read("[Planet]\nname = mine\n", file: "config.ini")
        #expect(try ini.value("name", in: "Planet") == "mine")
        #expect(try ini.value("items_per_page", in: "Planet") == "10")
        #expect(try ini.value("link", in: "Planet") == "l")
        #expect(ini.sections == ["Planet"])
    }

    @Test func errorsNameTheLine() throws {
        #expect(throws: INIFile.ParseError.self) { try read("name = x\n[Planet]\n") }
        do {
            _ = try read("[Planet]\nname = x\nthis line is wrong\n")
            Issue.record("no error")
        } catch {
            #expect(
                (error as? INIFile.ParseError)?.description
                    == "test.ini:3: not an option (key = value), a [section] or a comment")
        }
    }

    @Test func windowsLineEndings() throws {
        let ini = try read("[Planet]\r\nname = x\r\ntemplate_files:\r\n  a\r\n  b\r\n")
        #expect(try ini.value("name", in: "Planet") == "x")
        #expect(try ini.value("template_files", in: "Planet") == "a\nb")
    }
}
