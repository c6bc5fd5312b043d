/// The hostile-HTML set: the known XSS and mutation-XSS shapes. Each case goes
/// through the three property checks in `HostileHTMLTests`.
enum HostileCases {
    static let handWritten: [String] = [
        // script and style, with content
        "<script>alert(1)</script>safe",
        "<SCRIPT SRC=http://x.test/x.js></SCRIPT>",
        "<script>document.write('<img src=x onerror=alert(1)>')</script>",
        "<scr<script>ipt>alert(1)</scr</script>ipt>",
        "<style>body{background:url(javascript:alert(1))}</style>text",
        "<style>@import 'http://x.test/x.css';</style>",
        "<p>a<script>b</script>c</p>",
        "<pre><script></script>\nline</pre>",
        // embedding and forms
        "<iframe src=\"javascript:alert(1)\"></iframe>",
        "<iframe srcdoc=\"&lt;script&gt;alert(1)&lt;/script&gt;\"></iframe>",
        "<frameset><frame src=javascript:alert(1)></frameset>",
        "<object data=\"javascript:alert(1)\"><param name=x value=y>fallback</object>",
        "<embed src=\"javascript:alert(1)\">",
        "<applet code=x.class>no</applet>",
        "<form action=\"javascript:alert(1)\"><input type=submit></form>",
        "<form><button formaction=\"javascript:alert(1)\">x</button></form>",
        "<button formaction=javascript:alert(1)>x</button>",
        "<input type=image src=x onerror=alert(1)>",
        "<select><option>a</option></select><textarea><img src=x onerror=alert(1)></textarea>",
        "<isindex action=javascript:alert(1)>",
        "<keygen autofocus onfocus=alert(1)>",
        // head elements
        "<base href=\"http://evil.test/\"><a href=x>x</a>",
        "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(1)\">",
        "<link rel=stylesheet href=\"http://evil.test/x.css\">",
        "<link rel=import href=x.html>",
        "<title><img src=x onerror=alert(1)></title>",
        // mutation XSS
        "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\"></noscript>",
        "<svg><style><img src=x onerror=alert(1)></style></svg>",
        "<!--><img src=x onerror=alert(1)>-->",
        "<!--<img src=x onerror=alert(1)>-->",
        "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
        "<math><mtext><table><mglyph><style><!--</style><img title=\"--&gt;&lt;img src=1 onerror=alert(1)&gt;\">",
        "<template><img src=x onerror=alert(1)></template>",
        "<select><template><img src=x onerror=alert(1)></template></select>",
        "<form><math><mtext></form><form><mglyph><style></math><img src onerror=alert(1)>",
        "<svg></p><style><a id=\"</style><img src=1 onerror=alert(1)>\">",
        "<math><style><img src=x onerror=alert(1)></style></math>",
        "<svg><foreignObject><img src=x onerror=alert(1)></foreignObject></svg>",
        "<math href=\"javascript:alert(1)\">x</math>",
        "<svg><a xlink:href=\"javascript:alert(1)\"><text>x</text></a></svg>",
        "<xmp><img src=x onerror=alert(1)></xmp>",
        "<noembed><img src=x onerror=alert(1)></noembed>",
        "<noframes><img src=x onerror=alert(1)></noframes>",
        "<plaintext><img src=x onerror=alert(1)>",
        "<p title=\"</p><img src=x onerror=alert(1)>\">x</p>",
        "<a title=\"&lt;/a&gt;&lt;script&gt;\">x</a>",
        "<table><td><img src=x onerror=alert(1)></table>",
        "<table><tr>text<td>cell</table>",
        "<table><x-y>foster<b>bold</b></x-y><tr><td>c</td></tr></table>",
        "<a href=\"http://a.test/\">1<table><a href=\"http://b.test/\">2</a></table></a>",
        "<a href=\"http://a.test/\"><div><a href=\"http://b.test/\">x</a></div></a>",
        "<h1><x-y><h2>heading in heading</h2></x-y></h1>",
        "<p><x-y><div>block in p</div></x-y></p>",
        "<p><marquee><p>p in marquee in p</p></marquee></p>",
        "<p><label><div>x</div></label>y</p>",
        "<ul><li><x-y><li>li in li</li></x-y></li></ul>",
        "<dl><dt><x-y><dd>dd in dt</dd></x-y></dt></dl>",
        "<ruby><x-y><rt>rt</rt></x-y></ruby>",
        "<b><p>adoption</b>agency</p>",
        "<a href=\"http://a.test/\"><p>x</a>y</p>",
        "<table><caption><x-y><table><tr><td>x</table></x-y></caption></table>",
        "<pre><x-y>\nfirst line</x-y></pre>",
        "<pre>\n\nleading newlines</pre>",
        "<listing>\nlisting</listing>",
        "<textarea>\n</textarea><pre>\n</pre>",
        "<select><option><img src=x onerror=alert(1)></select>",
        // gumbo 0.10.1 aborts on these unless the sanitizer steers around them
        "<table><math><select><mtext><select><table>",
        "<table><svg><select><desc><select><table>",
        "<TABLE><MATH><SELECT><MTEXT><SELECT><TABLE>x",
        "<image src=x onerror=alert(1)>",
        "<div \"onclick=alert(1)\">x</div>",
        "<img src=x onerror=alert(1)//",
        "<img/src=x/onerror=alert(1)>",
        "<img src=`x` onerror=alert(1)>",
        "<a href=\"http://a.test/\" target=\"_blank\" rel=opener>x</a>",
        "<div id=\"x\" class=\"y\" name=\"z\">dom clobbering</div>",
        "<img name=getElementById src=http://a.test/x.png>",
        // CSS exfiltration and style tricks
        "<span style=\"background:url(http://evil.test/leak)\">x</span>",
        "<span style=\"background-image: url('http://evil.test/leak')\">x</span>",
        "<span style=\"color: expression(alert(1))\">x</span>",
        "<span style=\"width: expr/**/ession(alert(1))\">x</span>",
        "<span style=\"color: red; @import 'x'\">x</span>",
        "<span style=\"background: u\\rl(http://evil.test/)\">x</span>",
        "<span style=\"behavior: url(x.htc)\">x</span>",
        "<span style=\"-moz-binding: url(x.xml#x)\">x</span>",
        "<span style=\"position: fixed; top: 0; left: 0; width: 100%; height: 100%\">overlay</span>",
        "<div style=\"background: image-set(url(x.png) 1x)\">x</div>",
        "<div style=\"font-family: 'x'; color: var(--x)\">x</div>",
        "<div style=\"border: 1px solid rgb(0,0,0); content: attr(x)\">x</div>",
        // URLs with NUL and odd characters
        "<a href=\"java\u{0}script:alert(1)\">x</a>",
        "<a href=\"\u{0}javascript:alert(1)\">x</a>",
        "<a href=\"javascript&colon;alert(1)\">x</a>",
        "<a href=\"javascript&#58;alert(1)\">x</a>",
        "<a href=\"&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A;alert(1)\">x</a>",
        "<a href=\"\u{FEFF}javascript:alert(1)\">x</a>",
        "<img srcset=\"http://a.test/1.png 1x, javascript:alert(1) 2x\">",
        "<img srcset=\"data:text/html,x 1x, http://a.test/2.png 2x\">",
        "<img srcset=\"http://a.test/a.png 1x,javascript:alert(1) 2x,\">",
        "<img srcset=\"http://a.test/a.png bogus-descriptor\">",
        "<picture><source srcset=\"javascript:alert(1)\"><img src=\"http://a.test/i.png\"></picture>",
        "<video src=\"http://a.test/v.mp4\" autoplay onplay=alert(1) poster=\"javascript:alert(1)\"></video>",
        "<audio src=\"vbscript:x\" autoplay></audio>",
        "<video><track src=\"javascript:alert(1)\"></video>",
        "<details open ontoggle=alert(1)><summary>s</summary>d</details>",
        "<blockquote cite=\"javascript:alert(1)\">q</blockquote>",
        "<img longdesc=\"javascript:alert(1)\" src=\"http://a.test/i.png\">",
        "<map name=m><area href=\"javascript:alert(1)\" shape=rect coords=0,0,1,1></map><img usemap=#m>",
        "<table background=\"javascript:alert(1)\"><tr><td>x</td></tr></table>",
        "<img dynsrc=\"javascript:alert(1)\" lowsrc=\"javascript:alert(1)\">",
        "<div datasrc=\"#x\" datafld=\"y\">x</div>",
        "<canvas>fallback</canvas><dialog open>overlay</dialog><portal src=x></portal>",
        "<custom-element onclick=alert(1)>kept text</custom-element>",
        "<o:p>word</o:p>",
        "<!DOCTYPE html><html><head><script>x</script></head><body onload=alert(1)>body</body></html>",
        "<?xml version=\"1.0\"?><p>x</p>",
        "<![CDATA[<img src=x onerror=alert(1)>]]>",
        "<a href=\"http://a.test/\">&lt;script&gt;alert(1)&lt;/script&gt;</a>",
        "text with < & > \u{A0} characters",
        "\u{1}\u{8}\u{B}\u{C}\u{1F}\u{FFFE}\u{FFFF} controls",
        "<p>unclosed <b>bold <i>italic",
        "</div></p></body>stray end tags",
        "<div><div><div></div>",
        String(repeating: "<b>", count: 5_000) + "deep formatting",
        String(repeating: "<a href=\"http://a.test/\">", count: 300) + "anchors",
        String(repeating: "<table><tr><td>", count: 300) + "tables",
        String(repeating: "<ul><li>", count: 600) + "lists",
        String(repeating: "<div>", count: 300) + "<h1><x-y><h2>deep</h2></x-y></h1>",
    ]

    static let eventNames = [
        "onerror", "onload", "onclick", "onmouseover", "onfocus", "onblur", "onanimationstart", "ontoggle",
        "onpointerenter", "onbeforetoggle", "onfoo", "ONCLICK", "OnError", "onx", "on", "on-x", "onauxclick",
        "onscrollend", "oncontentvisibilityautostatechange", "onwheel",
    ]

    static let eventCases: [String] = eventNames.flatMap { name in
        [
            "<img src=\"http://a.test/x.png\" \(name)=\"alert(1)\">",
            "<a href=\"http://a.test/\" \(name)=alert(1)>link</a>",
        ]
    }

    static let urlPayloads = [
        "javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)", "\u{1}\u{2} javascript:alert(1)",
        "java\tscript:alert(1)", "java\nscript:alert(1)", "java&#x09;script:alert(1)", "&#106;avascript:alert(1)",
        "&#x6A;avascript:alert(1)", "&#0000106avascript:alert(1)", "jav&#x0A;ascript:alert(1)",
        "javascript&colon;alert(1)", "vbscript:msgbox(1)", "VBScript:msgbox(1)",
        "data:text/html,<script>alert(1)</script>", "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
        "data:image/svg+xml,<svg onload=alert(1)>", "data:image/png;base64,iVBOR<script>",
        "&#14;javascript:alert(1)", "  \n javascript:alert(1)",
    ]

    static let urlCases: [String] = urlPayloads.flatMap { payload -> [String] in
        let quoted = payload.replacingQuotes
        return [
            "<a href=\"\(quoted)\">x</a>",
            "<img src=\"\(quoted)\">",
            "<img srcset=\"\(quoted) 1x\">",
            "<video poster=\"\(quoted)\"></video>",
            "<q cite=\"\(quoted)\">q</q>",
            "<form><button formaction=\"\(quoted)\">b</button></form>",
        ]
    }

    static let all: [String] = handWritten + eventCases + urlCases
}

extension String {
    fileprivate var replacingQuotes: String { split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "&quot;") }
}
