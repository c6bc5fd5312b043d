import HTMLSanitizer
import Testing

/// Further hostile shapes (entity-split schemes, NUL prefixes, …), through the same three properties.
@Suite struct ReviewShapesTests {
    static let shapes: [String] = [
        "<a href=\"jav&#x0A;ascript:alert(1)\">a</a>",
        "<a href=\"jav&Tab;ascript&colon;alert(1)\">a</a>",
        "<a href=\"&#0;javascript:alert(1)\">a</a>",
        "<a href=\"javascript&#x003A;alert(1)\">a</a>",
        "<a href=\"%6A%61%76%61%73%63%72%69%70%74:alert(1)\">a</a>",
        "<a href=\"javascript\u{A0}:alert(1)\">a</a>",
        "<img src=\"data:image/png,<svg onload=alert(1)>\">",
        "<img srcset=\"data:image/png;base64,AAAA,javascript:alert(1) 2x\">",
        "<video><source src=\"javascript:alert(1)\"><track src=\"javascript:alert(1)\"></video>",
        "<p style=\"font-family:'a' ; color: red; behavior: url(x.htc); -moz-binding: url(x)\">s</p>",
        "<div><svg><p><style><img src=x onerror=alert(1)></style></p></svg></div>",
        "<math><annotation-xml encoding=\"text/html\"><style><img src=x onerror=alert(1)></style></annotation-xml></math>",
        "<noscript><style></noscript><img src=x onerror=alert(1)></style>",
        "<select><style><img src=x onerror=alert(1)></style></select>",
        "<select><keygen><img src=x onerror=alert(1)>",
        "<!--[if gte IE 4]><script>alert(1)</script><![endif]-->",
        "<![CDATA[<img src=x onerror=alert(1)>]]>",
        "<svg><![CDATA[</svg><img src=x onerror=alert(1)>]]></svg>",
        "<math><mtext><h1><a><svg><style><img src=x onerror=alert(1)>",
        "<template><style></template><img src=x onerror=alert(1)></style>",
        "<p><table><caption><p>x</caption></table>",
        "<listing>\n\nx</listing>",
        String(repeating: "<table>", count: 500) + "tab",
        String(repeating: "<a href=\"http://a.test/\">", count: 400) + "anchors",
        String(repeating: "<b>", count: 2000) + String(repeating: "<i>", count: 2000) + "formatting",
        "<p>\u{FFFE}\u{FFFF}\u{1}\u{B}\u{7F}\u{85}\u{1FFFE}</p>",
    ]

    @Test(arguments: shapes)
    func reviewShape(_ input: String) {
        HostileHTMLTests.checkProperties(input)
    }
}
