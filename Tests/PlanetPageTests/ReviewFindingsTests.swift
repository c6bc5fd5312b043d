import FeedModel
import Foundation
import Testing
import TextOutput

@testable import PlanetPage

/// What a planet's page must get right when its feeds are hostile or odd, found
/// by using the product: each test states what must hold.
@Suite struct ReviewFindingsTests {
    /// A title that closes a raw-text element and opens a handler.
    static func hostileInput() -> PlanetPageInput {
        var input = Sample.input
        input.entries[0].entry.title = Text("</style></script><img src=x onerror=alert(1)>")
        return input
    }

    /// HTMLResult writes the text of `script` and `style` unescaped, trusting
    /// that only the theme puts text there; a theme that puts feed data there
    /// (a JSON-LD block, a CSS comment naming the planet) lets a feed end the
    /// element and run script.
    @Test func feedTextInAThemeStyleOrScriptCannotEndTheElement() throws {
        let theme = try Sample.theme(
            """
            <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                xmlns:atom="http://www.w3.org/2005/Atom">
              <xsl:template match="/">
                <html><head>
                  <style>/* <xsl:value-of select="//atom:entry[1]/atom:title"/> */</style>
                  <script type="application/ld+json">{"name": "<xsl:value-of select="//atom:entry[1]/atom:title"/>"}</script>
                </head><body/></html>
              </xsl:template>
            </xsl:stylesheet>
            """)
        let html = try Sample.render(Self.hostileInput(), theme: theme).lowercased()
        // The feed's text stays inside the elements: the only end tags are the theme's own.
        #expect(html.components(separatedBy: "</style").count == 2, "\(html)")
        #expect(html.components(separatedBy: "</script").count == 2, "\(html)")
        #expect(html.contains("<\\/style><\\/script><img src=x onerror"), "\(html)")
    }

    /// A theme with `method="text"` is written as it is into the .html page:
    /// feed text reaches the page unescaped.
    @Test func aTextThemeDoesNotWriteFeedMarkupIntoThePage() throws {
        guard let theme = try? Sample.theme(
            """
            <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                xmlns:atom="http://www.w3.org/2005/Atom">
              <xsl:output method="text"/>
              <xsl:template match="/">&lt;h1&gt;<xsl:value-of select="//atom:entry[1]/atom:title"/>&lt;/h1&gt;</xsl:template>
            </xsl:stylesheet>
            """) else { return }  // refused: a text theme cannot write a page
        let html = try? Sample.render(Self.hostileInput(), theme: theme)
        #expect(html.map { !$0.contains("<img src=x onerror") } ?? true, "\(html ?? "")")
    }

    /// (Refused since: a text theme cannot be compiled as a page theme.)
    @Test func aTextThemeCannotBeUsed() throws {
        #expect(throws: Theme.Failure.self) {
            _ = try Sample.theme(
                """
                <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
                  <xsl:output method="text"/><xsl:template match="/">x</xsl:template>
                </xsl:stylesheet>
                """)
        }
    }

    /// The common `disable-output-escaping` DOCTYPE idiom leaves text before
    /// `<html>`: the HTML parser then opens `body` at once, and the theme's
    /// `<meta http-equiv="Content-Security-Policy">` lands in `body`, where
    /// browsers ignore it (and the DOCTYPE shows as text).
    @Test func textBeforeTheRootElementDoesNotMoveTheHeadIntoTheBody() throws {
        let theme = try Sample.theme(
            """
            <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
              <xsl:output method="html"/>
              <xsl:template match="/">
                <xsl:text disable-output-escaping="yes">&lt;!DOCTYPE html&gt;&#10;</xsl:text>
                <html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'"/></head><body/></html>
              </xsl:template>
            </xsl:stylesheet>
            """)
        let html = try Sample.render(theme: theme)
        #expect(!html.contains("&lt;!DOCTYPE"), "\(html)")
    }
}
