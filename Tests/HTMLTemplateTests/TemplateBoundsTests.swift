import Foundation
import HTMLTemplate
import Testing

/// A downloaded template is bounded (includes, nesting, time) and cannot
/// let feed text out of where it puts it: each value is escaped for the
/// place the template's own text puts it in.
@Suite struct TemplateBoundsTests {
    @Test func includesThatMultiplyStopAtTheirCap() throws {
        // The template and inc/x.tmpl each include x.tmpl 20 times: 20^5 files at five levels.
        let twenty = String(repeating: "<TMPL_INCLUDE x.tmpl>", count: 20)
        let start = ContinuousClock.now
        #expect {
            _ = try HTMLTemplate(text: twenty, name: "t.tmpl", include: { _ in "x" + twenty })
        } throws: { error in
            "\(error)".contains("more than 1000 <TMPL_INCLUDE>s in all")
        }
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test func anIncludeTooLargeOnceExpandedIsRefused() throws {
        // Few includes, each large: the expanded text is capped.
        let large = String(repeating: "y", count: 1 << 20)
        let text = String(repeating: "<TMPL_INCLUDE big.tmpl>", count: 20)
        #expect {
            _ = try HTMLTemplate(text: text, name: "t.tmpl", include: { _ in large })
        } throws: { error in
            "\(error)".contains("its includes come to more than 8 MiB of text")
        }
    }

    @Test func compilingStopsAtItsTimeLimit() throws {
        let twenty = String(repeating: "<TMPL_INCLUDE x.tmpl>", count: 20)
        #expect {
            _ = try HTMLTemplate(text: twenty, name: "t.tmpl", include: { _ in "x" + twenty }, timeLimit: 0)
        } throws: { error in
            "\(error)".contains("compiling it took longer than its time limit")
        }
    }

    @Test func deepNestingIsRefusedNotACrash() throws {
        let depth = 100_000
        let text =
            String(repeating: "<TMPL_UNLESS x>", count: depth) + "deep"
            + String(repeating: "</TMPL_UNLESS>", count: depth)
        #expect {
            _ = try HTMLTemplate(text: text, name: "t.tmpl")
        } throws: { error in
            "\(error)".contains("statements nest more than 200 deep")
        }
        // Through includes too: each file opens 150, the nesting counts across them.
        let half =
            String(repeating: "<TMPL_IF x>", count: 150) + "<TMPL_INCLUDE more.tmpl>"
            + String(repeating: "</TMPL_IF>", count: 150)
        #expect {
            _ = try HTMLTemplate(text: half, name: "t.tmpl", include: { _ in half })
        } throws: { error in
            "\(error)".contains("statements nest more than 200 deep")
        }
        // 200 deep renders.
        let fine =
            String(repeating: "<TMPL_UNLESS x>", count: 200) + "deep" + String(repeating: "</TMPL_UNLESS>", count: 200)
        #expect(try HTMLTemplate(text: fine, name: "t.tmpl").render([:]) == "deep")
    }

    static let values: [String: TemplateValue] = [
        "author_name": .text("y' onfocus='alert(2)' autofocus='"),
        "title": .markup("x\" onmouseover=\"alert(1)"),
        "link": .text("a b onclick=alert(3)"),
        "content": .markup("<a href=\"http://e.example/\">AT&amp;T</a>"),
    ]

    func render(_ text: String) throws -> String {
        try HTMLTemplate(text: text, name: "t.tmpl").render(Self.values)
    }

    @Test func aTextValueCannotEndAnAttributeQuotedEitherWay() throws {
        #expect(
            try render("<a title='<TMPL_VAR author_name>'>")
                == "<a title='y&#39; onfocus=&#39;alert(2)&#39; autofocus=&#39;'>")
        #expect(
            try render("<a title=\"<TMPL_VAR author_name ESCAPE=\"HTML\">\">")
                == "<a title=\"y&#39; onfocus=&#39;alert(2)&#39; autofocus=&#39;\">")
        // Between tags too: a ' is escaped wherever a text value goes.
        #expect(
            try render("<p><TMPL_VAR author_name></p>") == "<p>y&#39; onfocus=&#39;alert(2)&#39; autofocus=&#39;</p>")
    }

    @Test func markupInsideAnAttributeCannotEndIt() throws {
        #expect(try render("<a title=\"<TMPL_VAR title>\">") == "<a title=\"x&quot; onmouseover=&quot;alert(1)\">")
        #expect(try render("<a title='<TMPL_VAR title>'>") == "<a title='x&quot; onmouseover=&quot;alert(1)'>")
        // Its character references stay meant; its tags cannot open inside the attribute.
        #expect(
            try render("<img alt=\"<TMPL_VAR content>\">")
                == "<img alt=\"&lt;a href=&quot;http://e.example/&quot;&gt;AT&amp;T&lt;/a&gt;\">")
        // Between tags, markup is written as it is.
        #expect(try render("<div><TMPL_VAR content></div>") == "<div><a href=\"http://e.example/\">AT&amp;T</a></div>")
    }

    @Test func anUnquotedAttributeValueCannotStartAnotherAttribute() throws {
        #expect(try render("<a href=<TMPL_VAR link>>") == "<a href=a&#32;b&#32;onclick&#61;alert(3)>")
    }

    @Test func theContextFollowsTheTemplatesTextAcrossStatementsAndIncludes() throws {
        // A quote inside a comment or a script does not open an attribute.
        let text = """
            <!-- it's a comment --><script>var a = 1 < 2 && 'x';</script>
            <TMPL_IF content><div><TMPL_VAR content></div></TMPL_IF><TMPL_INCLUDE open.tmpl><TMPL_VAR title>">
            """
        let result = try HTMLTemplate(text: text, name: "t.tmpl", include: { _ in "<a title=\"" }).render(Self.values)
        #expect(result.contains("<div><a href=\"http://e.example/\">AT&amp;T</a></div>"), "\(result)")
        #expect(result.hasSuffix("<a title=\"x&quot; onmouseover=&quot;alert(1)\">"), "\(result)")
    }
}
