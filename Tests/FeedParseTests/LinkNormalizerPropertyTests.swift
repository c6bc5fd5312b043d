import FeedParse
import Testing

/// Normalizing a normalized link changes nothing: the timeline compares
/// normalized links, and a link normalized twice (a feed's link stored,
/// then read back) must name the same entry. The pieces are what links in
/// feeds are made of, including the whitespace and empty parts that
/// feeds get wrong; the generator is seeded, so a failure repeats.
@Suite struct LinkNormalizerPropertyTests {
    static let pieces = [
        "http://", "https://", "HTTP://", "ftp://", "a.example", "A.Example", ":80", ":443", ":8080", "/", "//", "b",
        "?", "&", "#", "#x", "q=1", "utm_source=x", "UTM_x=", " ", "\t", "\n", "%20", "é", ":", "?#", "/#", "#/",
    ]

    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    @Test func normalizingTwiceIsNormalizingOnce() {
        var generator = Generator(state: 20_261_201)
        var failures: [String] = []
        for _ in 0..<50_000 {
            var link = ""
            for _ in 0..<(1 + generator.next(9)) { link += Self.pieces[generator.next(Self.pieces.count)] }
            let once = LinkNormalizer.normalize(link)
            let twice = LinkNormalizer.normalize(once)
            if once != twice && failures.count < 10 { failures.append("\(link.debugDescription) → \(once.debugDescription) → \(twice.debugDescription)") }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    /// A case the links fuzz target found: whitespace before the fragment.
    @Test func whitespaceBeforeTheFragment() {
        #expect(LinkNormalizer.normalize("http://a.example/b #x") == "http://a.example/b#x")
        #expect(LinkNormalizer.normalize(LinkNormalizer.normalize("http://a.example/b #x")) == "http://a.example/b#x")
    }
}
