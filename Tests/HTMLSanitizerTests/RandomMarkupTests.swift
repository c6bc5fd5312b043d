import HTMLSanitizer
import Testing

/// Random tag soup from the elements whose parsing rules interact (tables,
/// formatting elements, `p`, headings, lists, links, foreign content, raw
/// text, unknown elements that get unwrapped), with a fixed seed: every
/// generated input must keep the three properties. This is how foster
/// parenting (`<dt><table><dd>`) and a gumbo abort (`GumboWorkaround`) were
/// found; 200,000 inputs of up to 60 pieces passed before it was cut to this size.
@Suite struct RandomMarkupTests {
    /// A small deterministic generator (SplitMix64), so a failure reproduces.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let pieces = [
        "<table>", "</table>", "<tr>", "<td>", "</td>", "<th>", "<caption>", "<tbody>", "<colgroup><col>",
        "<a href=\"http://a.test/\">", "</a>", "<b>", "</b>", "<i>", "</i>", "<nobr>", "<p>", "</p>", "<h1>", "<h2>",
        "</h1>", "<li>", "<ul>", "</ul>", "<dd>", "<dt>", "<x-y>", "</x-y>", "<marquee>", "</marquee>", "<object>",
        "</object>", "<form>", "</form>", "<select>", "<option>", "<svg>", "</svg>", "<math>", "<mtext>", "<mglyph>",
        "<style>", "</style>", "<noscript>", "</noscript>", "<template>", "</template>", "<textarea>", "<pre>",
        "\n", "text", " ", "<img src=x onerror=alert(1)>", "<br>", "</br>", "<div>", "</div>", "<button>",
        "<label>", "</label>", "<ruby>", "<rt>", "<rp>", "<font color=red>", "<center>", "<listing>", "<!--",
        "-->", "<xmp>", "</xmp>", "<iframe>", "</iframe>", "<span title=\"</noscript><img src=x onerror=1>\">",
        "<blockquote>", "<figure>", "<summary>", "<details>", "&amp;", "&nbsp;", "<q>", "<s>", "<dialog>",
        "<picture>", "<source srcset=\"javascript:x 1x\">", "<video>", "<audio>",
    ]

    @Test(arguments: 0..<100)
    func randomTagSoup(_ batch: Int) {
        var random = SplitMix(state: UInt64(batch) &* 7919 &+ 1)
        for _ in 0..<50 {
            let length = Int.random(in: 1...40, using: &random)
            let input = (0..<length).map { _ in Self.pieces.randomElement(using: &random)! }.joined()
            HostileHTMLTests.checkProperties(input)
        }
    }
}
