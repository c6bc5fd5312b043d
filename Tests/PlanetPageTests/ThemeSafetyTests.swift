import FeedModel
import Foundation
import HTMLOracle
import Testing

@testable import PlanetPage

/// A downloaded theme cannot be turned against the page by feed text, nor
/// hold the run: what the result tree's writer does wherever a browser reads
/// text in another state, and the transformation's time limit.
@Suite struct ThemeSafetyTests {
    /// Titles that end or escape a comment, a raw-text element or an attribute.
    static let hostileTitles = [
        "><img src=x onerror=alert(1)>", "-><img src=x onerror=alert(2)>", "--><img src=x onerror=alert(3)>",
        "--!><img src=x onerror=alert(4)>", "<!--<img src=x onerror=alert(5)>", "x<!-", "trailing-",
        "</noscript><img src=x onerror=alert(6)>", "</script><img src=x onerror=alert(7)>",
        "</style><img src=x onerror=alert(8)>", "</title><img src=x onerror=alert(9)>",
        "</textarea><img src=x onerror=alert(10)>", "</iframe><img src=x onerror=alert(11)>",
    ]

    static var input: PlanetPageInput {
        var input = Sample.input
        input.entries = hostileTitles.enumerated().map { index, title in
            Sample.entry("h\(index)", title, "2026-11-30T13:05:00Z", html: "<p>body</p>", source: Sample.planet)
        }
        return input
    }

    /// Puts every entry title where a careless theme would: comments, script, style, title,
    /// textarea, noscript and iframe content, and attributes inside them.
    static let careless = """
        <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
          xmlns:atom="http://www.w3.org/2005/Atom">
          <xsl:template match="/atom:feed">
            <html><head><title><xsl:value-of select="atom:entry[1]/atom:title"/></title>
            <style>/* <xsl:value-of select="atom:entry[9]/atom:title"/> */</style></head><body>
            <xsl:for-each select="atom:entry">
              <xsl:comment> entry: <xsl:value-of select="atom:title"/></xsl:comment>
              <xsl:comment><xsl:value-of select="atom:title"/></xsl:comment>
              <script>var title = "<xsl:value-of select="atom:title"/>";</script>
              <textarea><xsl:value-of select="atom:title"/></textarea>
              <noscript><p title="{atom:title}"><xsl:value-of select="atom:title"/></p></noscript>
              <iframe><b title="{atom:title}">x</b></iframe>
              <p class="{atom:title}"><xsl:value-of select="atom:title"/></p>
            </xsl:for-each>
            </body></html>
          </xsl:template>
        </xsl:stylesheet>
        """

    @Test func feedTextCannotEndWhatTheThemeOpened() throws {
        let html = try Sample.render(Self.input, theme: Sample.theme(Self.careless))
        // As an HTML parser reads it: every hostile title stays text, comment or attribute value.
        let parsed = ParsedOutput(parsing: html)
        var stack = parsed.root.children
        var elements: [String] = []
        while let child = stack.popLast() {
            guard case .element(let node) = child else { continue }
            elements.append(node.name)
            #expect(!node.attributes.contains { $0.name.hasPrefix("on") }, "\(node.name) got a handler")
            stack += node.children
        }
        #expect(!elements.contains("img"), "an element escaped: \(parsed.dump)")
        // Byte level, for what a parser with scripting on reads as raw text (noscript, iframe): once
        // the comments, scripts and styles are taken out where a browser ends them, no tag of the
        // feed's is left.
        let markup = Self.withoutRawText(Self.withoutComments(html))
        #expect(!markup.contains("<img"), "\(markup)")
        // The comments still say what the theme meant them to, recovered as XSLT 1.0 allows.
        #expect(html.contains("<!-- entry: ><img src=x onerror=alert(1)>-->"), "\(html)")
        #expect(html.contains("<!-- -><img src=x onerror=alert(2)>-->"), "\(html)")
        #expect(html.contains("<!--- - ><img src=x onerror=alert(3)>-->") == false)
        #expect(html.contains("<!-- - -><img src=x onerror=alert(3)>-->"), "\(html)")
    }

    /// The text outside comments, each ended where HTML ends it: at `-->` or `--!>`, or at once
    /// after `<!-->` or `<!--->`.
    static func withoutComments(_ html: String) -> String {
        var out = ""
        var rest = Substring(html)
        while let open = rest.range(of: "<!--") {
            out += rest[..<open.lowerBound]
            var body = rest[open.upperBound...]
            if body.hasPrefix(">") || body.hasPrefix("->") {
                body = body.drop { $0 != ">" }.dropFirst()
                rest = body
                continue
            }
            let ends = [body.range(of: "-->"), body.range(of: "--!>")].compactMap { $0 }
            guard let end = ends.min(by: { $0.lowerBound < $1.lowerBound }) else { return out }
            rest = body[end.upperBound...]
        }
        return out + rest
    }

    /// Without the text of `script` and `style` elements, each ended at its first `</name`.
    static func withoutRawText(_ html: String) -> String {
        var out = ""
        var rest = Substring(html)
        while let open = ["<script>", "<style>"].compactMap({ rest.range(of: $0) }).min(by: {
            $0.lowerBound < $1.lowerBound
        }) {
            let name = rest[open].dropFirst().dropLast()
            out += rest[..<open.upperBound]
            guard let end = rest[open.upperBound...].range(of: "</\(name)") else { return out }
            rest = rest[end.lowerBound...]
        }
        return out + rest
    }

    @Test(arguments: [
        ("><img>", " ><img>"), ("-><img>", " -><img>"), ("--><img>", " - -><img>"), ("--!><img>", " - -!><img>"),
        ("a<!--b", "a<!- -b"), ("x<!-", "x<!- "), ("x<!", "x<! "), ("ends-", "ends- "), ("---", " - - - "),
        ("plain text", "plain text"),
    ])
    func commentTextFollowsHTMLsCommentGrammar(text: String, written: String) {
        #expect(HTMLResult.commentText(text) == written)
    }

    @Test func attributeNamesThatWouldBreakTheTagAreNotWritten() {
        for name in ["title", "data-x", "xml:lang", "aria-label"] { #expect(HTMLResult.isWritableName(name)) }
        for name in ["a\"b", "a b", "a=b", "a>b", "a/b", "a'b", "", "a\u{7F}"] { #expect(!HTMLResult.isWritableName(name)) }
    }

    @Test func feedTextCannotBecomeScriptThroughAnAttribute() throws {
        var input = Sample.input
        input.entries = ["javascript:alert(1)", " \tjava\nscript:alert(2)", "data:text/html,<script>alert(3)</script>",
            "<script>alert(4)</script>", "https://example.org/fine"].enumerated().map { index, title in
            Sample.entry("u\(index)", title, "2026-11-30T13:05:00Z", html: "<p>body</p>", source: Sample.planet)
        }
        let theme = try Sample.theme(
            """
            <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
              xmlns:atom="http://www.w3.org/2005/Atom">
              <xsl:template match="/atom:feed"><html><body><xsl:for-each select="atom:entry">
                <a href="{atom:title}" onclick="show('{atom:title}')" ONMOUSEOVER="x">link</a>
                <iframe srcdoc="{atom:title}" src="{atom:title}"></iframe><img src="{atom:title}" alt="i"/>
                <form action="{atom:title}"><button formaction="{atom:title}">b</button></form>
              </xsl:for-each><img src="data:image/png;base64,iVBORw0KGgo=" alt="kept"/></body></html></xsl:template>
            </xsl:stylesheet>
            """)
        let html = try Sample.render(input, theme: theme)
        for gone in ["onclick", "ONMOUSEOVER", "srcdoc", "javascript", "script:alert", "data:text/html"] {
            #expect(!html.contains(gone), "\(gone) in \(html)")
        }
        #expect(html.contains("href=\"https://example.org/fine\"") && html.contains("src=\"data:image/png;base64,"))
        #expect(HTMLResult.runsScript(url: "JaVaScRiPt:x") && HTMLResult.runsScript(url: "\u{01} vbscript:x"))
        #expect(!HTMLResult.runsScript(url: "/javascript:x") && !HTMLResult.runsScript(url: "https://a/?javascript:"))
    }

    /// Work that doubles at each of 60 levels: 2^60 calls.
    static let doubling = """
        <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
          <xsl:template match="/"><html><body><xsl:call-template name="t">
            <xsl:with-param name="n" select="60"/></xsl:call-template></body></html></xsl:template>
          <xsl:template name="t"><xsl:param name="n"/><xsl:if test="$n &gt; 0">
            <xsl:call-template name="t"><xsl:with-param name="n" select="$n - 1"/></xsl:call-template>
            <xsl:call-template name="t"><xsl:with-param name="n" select="$n - 1"/></xsl:call-template>
          </xsl:if></xsl:template>
        </xsl:stylesheet>
        """

    /// One XPath expression that would take hours: libxslt's own checks never run inside it.
    static let endlessExpression = """
        <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
          <xsl:template match="/"><html><body><xsl:value-of
            select="count(//node()[count(//node()[count(//node()[count(//node()[count(//node())]) &gt; 0]) &gt; 0]) &gt; 0])"/>
          </body></html></xsl:template>
        </xsl:stylesheet>
        """

    @Test(arguments: [("doubling", doubling), ("expression", endlessExpression)])
    func aRunawayThemeIsStoppedAtItsTimeLimit(name: String, text: String) throws {
        let theme = try Sample.theme(text, name, timeLimit: 1)
        let start = Date()
        do {
            _ = try Sample.render(Sample.input, theme: theme)
            Issue.record("the \(name) theme finished")
        } catch {
            #expect("\(error)".contains("stopped after 1 s, its time limit (--theme-timeout)"), "\(error)")
            #expect("\(error)".contains(theme.name))
        }
        #expect(Date().timeIntervalSince(start) < 10)
    }

    @Test func aThemeWithinItsTimeIsNotStopped() throws {
        let html = try Sample.render(Sample.input, theme: Theme.builtIn(timeLimit: 30))
        #expect(html.contains("Third &lt;post&gt;"))
    }
}
