import Foundation
import HTMLTemplate
import TestSupport
import Testing

/// htmltmpl's language, as Planet 2.0's and Venus's templates use it.
@Suite struct HTMLTemplateTests {
    func render(
        _ text: String, _ values: [String: TemplateValue], include: @escaping (String) -> String? = { _ in nil }
    )
        throws -> String
    {
        try HTMLTemplate(text: text, name: "t.tmpl", include: include).render(values)
    }

    @Test func variablesAndTheirEscapes() throws {
        let values: [String: TemplateValue] = [
            "title": .markup("<b>Bold</b> &amp; more"), "name": .text("Tom & \"Jerry\" <x>"), "count": .number(3),
            "query": .text("a b&c/é"),
        ]
        #expect(try render("<TMPL_VAR title>", values) == "<b>Bold</b> &amp; more", "markup as it is")
        #expect(try render("<TMPL_VAR title ESCAPE=\"HTML\">", values) == "&lt;b&gt;Bold&lt;/b&gt; &amp;amp; more")
        #expect(try render("<TMPL_VAR name>", values) == "Tom &amp; &quot;Jerry&quot; &lt;x&gt;", "text never markup")
        #expect(try render("<TMPL_VAR NAME=\"name\" ESCAPE=HTML>", values) == "Tom &amp; &quot;Jerry&quot; &lt;x&gt;")
        #expect(try render("<TMPL_VAR query ESCAPE=\"URL\">", values) == "a+b%26c%2F%C3%A9")
        #expect(try render("<TMPL_VAR count>/<TMPL_VAR missing>.", values) == "3/.")
        #expect(try render("<!-- TMPL_VAR count -->", values) == "3")
    }

    @Test func conditionsWithElse() throws {
        let values: [String: TemplateValue] = [
            "yes": .text("x"), "empty": .text(""), "zero": .number(0), "Items": .loop([["a": .text("1")]]),
            "None": .loop([]),
        ]
        #expect(try render("<TMPL_IF yes>Y<TMPL_ELSE>N</TMPL_IF>", values) == "Y")
        #expect(try render("<TMPL_IF empty>Y<TMPL_ELSE>N</TMPL_IF>", values) == "N")
        #expect(try render("<TMPL_IF zero>Y<TMPL_ELSE>N</TMPL_IF>", values) == "N")
        #expect(try render("<TMPL_IF missing>Y</TMPL_IF>", values) == "")
        #expect(try render("<TMPL_UNLESS empty>U</TMPL_UNLESS>", values) == "U")
        #expect(try render("<TMPL_UNLESS yes>U<TMPL_ELSE>E</TMPL_UNLESS>", values) == "E")
        #expect(try render("<TMPL_IF Items>some</TMPL_IF><TMPL_IF None>none</TMPL_IF>", values) == "some")
    }

    @Test func loopsWithTheirMagicVariables() throws {
        let items: [[String: TemplateValue]] = (1...5).map { ["n": .number($0)] }
        let values: [String: TemplateValue] = ["Items": .loop(items), "outer": .text("O")]
        #expect(try render("<TMPL_LOOP Items><TMPL_VAR n></TMPL_LOOP>", values) == "12345")
        #expect(
            try render(
                "<TMPL_LOOP Items><TMPL_IF __FIRST__>[</TMPL_IF><TMPL_VAR __PASS__>/<TMPL_VAR __PASSTOTAL__><TMPL_IF __INNER__>i</TMPL_IF><TMPL_IF __ODD__>o</TMPL_IF><TMPL_IF __LAST__>]</TMPL_IF> </TMPL_LOOP>",
                values) == "[1/5o 2/5i 3/5io 4/5i 5/5o] ")
        #expect(
            try render("<TMPL_LOOP Items><TMPL_IF __EVERY__2>|</TMPL_IF><TMPL_VAR n></TMPL_LOOP>", values) == "1|23|45")
        // Inside a loop, only its pass's values, unless GLOBAL="1".
        #expect(try render("<TMPL_LOOP Items><TMPL_VAR outer></TMPL_LOOP>", values) == "")
        #expect(try render("<TMPL_LOOP Items><TMPL_VAR outer GLOBAL=\"1\"></TMPL_LOOP>", values) == "OOOOO")
        #expect(try render("<TMPL_VAR __PASS__>", values) == "", "no magic outside a loop")
    }

    @Test func nestedLoops() throws {
        let values: [String: TemplateValue] = [
            "Days": .loop([
                ["day": .text("Mon"), "Posts": .loop([["t": .text("a")], ["t": .text("b")]])],
                ["day": .text("Tue"), "Posts": .loop([])],
            ])
        ]
        #expect(
            try render("<TMPL_LOOP Days><TMPL_VAR day>:<TMPL_LOOP Posts><TMPL_VAR t></TMPL_LOOP>;</TMPL_LOOP>", values)
                == "Mon:ab;Tue:;")
    }

    @Test func commentsAndTheLinesStatementsStandOn() throws {
        let text = """
            ### a comment line
            <ul>
              <TMPL_LOOP Items>
              <li><TMPL_VAR n></li> ### a comment after text
              </TMPL_LOOP>
            </ul>
            ###not a comment (no space)
            """
        let result = try render(text, ["Items": .loop([["n": .number(1)], ["n": .number(2)]])])
        #expect(result == "\n<ul>\n  <li>1</li> \n  <li>2</li> \n</ul>\n###not a comment (no space)")
    }

    @Test func includesFromTheIncFolderAndTheirDepth() throws {
        let files = ["head.tmpl": "<h1><TMPL_VAR name></h1>", "self.tmpl": "x<TMPL_INCLUDE self.tmpl>"]
        #expect(try render("<TMPL_INCLUDE head.tmpl>body", ["name": .text("N")]) { files[$0] } == "<h1>N</h1>body")
        #expect(
            try render("<TMPL_INCLUDE NAME=\"self.tmpl\">", [:]) { files[$0] } == "xxxxx", "five levels, then left out")
        #expect(throws: HTMLTemplate.Failure.self) { try render("<TMPL_INCLUDE none.tmpl>", [:]) { files[$0] } }
    }

    @Test func mistakesNameTheirLine() throws {
        func failure(_ text: String) -> String? {
            do {
                _ = try HTMLTemplate(text: text, name: "t.tmpl")
                return nil
            } catch {
                return error.description
            }
        }
        #expect(
            failure("a\n<TMPL_IF x>\nb") == "t.tmpl:2: <TMPL_IF x> is never closed"
                || failure("a\n<TMPL_IF x>\nb")?.hasPrefix("t.tmpl:2:") == true)
        #expect(failure("a\nb\n</TMPL_LOOP>")?.hasPrefix("t.tmpl:3: </TMPL_LOOP> closes nothing") == true)
        #expect(failure("<TMPL_LOOP X></TMPL_IF>")?.contains("closes the <TMPL_…> of line 1") == true)
        #expect(failure("<TMPL_ELSE>")?.contains("outside a <TMPL_IF>") == true)
        #expect(failure("<TMPL_FOO bar>")?.contains("not an htmltmpl statement") == true)
        #expect(failure("<TMPL_VAR>")?.contains("names no variable") == true)
    }

    /// Venus's htmltmpl templates (`../shared/corpora/venus/themes`), compiled and filled.
    static let themes = SharedCorpora.path("venus/themes")?.path ?? ""

    @Test(.tags(.corpus), .enabled(if: FileManager.default.fileExists(atPath: themes), "needs ../shared/corpora/venus"))
    func venusTemplatesCompileAndRender() throws {
        let items: [[String: TemplateValue]] = (0..<3).map { n in
            [
                "id": .text("urn:\(n)"), "link": .text("http://x.example/\(n)"), "title": .markup("Post <i>\(n)</i>"),
                "title_plain": .text("Post \(n)"), "content": .markup("<p>Body \(n)</p>"), "channel_name": .text("Ann"),
                "new_channel": .text("urn:feed"), "new_date": n == 0 ? .text("December 01, 2026") : .text(""),
                "date": .text("December 01, 2026 10:00 AM"), "date_822": .text("Tue, 01 Dec 2026 10:00:00 +0000"),
                "date_iso": .text("2026-12-01T10:00:00+00:00"), "guid_isPermaLink": .text("false"),
            ]
        }
        let values: [String: TemplateValue] = [
            "name": .markup("Planet"), "link": .text("http://planet.example/"), "generator": .text("feedmerge"),
            "Items": .loop(items), "Channels": .loop([["name": .text("Ann"), "url": .text("http://x.example/feed")]]),
        ]
        for path in [
            "classic_fancy/index.html.tmpl", "common/rss20.xml.tmpl", "common/rss10.xml.tmpl", "common/admin.html.tmpl",
        ] {
            let text = try String(contentsOfFile: Self.themes + "/" + path, encoding: .utf8)
            let result = try HTMLTemplate(text: text, name: path).render(values)
            #expect(!result.contains("TMPL_"), "\(path)")
            #expect(["Post <i>2</i>", "Post 2", "urn:2"].contains(where: result.contains), "\(path)")
        }
    }
}
