import Testing

@testable import FeedParse

@Suite struct URLResolutionTests {
    /// RFC 3986, section 5.4: normal and abnormal examples against `http://a/b/c/d;p?q`.
    static let rfc3986: [(String, String)] = [
        ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
        ("/g", "http://a/g"), ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"),
        ("#s", "http://a/b/c/d;p?q#s"), ("g#s", "http://a/b/c/g#s"), ("g?y#s", "http://a/b/c/g?y#s"),
        (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"), ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"),
        ("./", "http://a/b/c/"), ("..", "http://a/b/"), ("../", "http://a/b/"), ("../g", "http://a/b/g"),
        ("../..", "http://a/"), ("../../", "http://a/"), ("../../g", "http://a/g"), ("../../../g", "http://a/g"),
        ("/./g", "http://a/g"), ("/../g", "http://a/g"), ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"),
        ("g..", "http://a/b/c/g.."), ("./../g", "http://a/b/g"), ("./g/.", "http://a/b/c/g/"),
        ("g/./h", "http://a/b/c/g/h"), ("g/../h", "http://a/b/c/h"), ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
        ("g?y/./x", "http://a/b/c/g?y/./x"), ("g#s/../x", "http://a/b/c/g#s/../x"),
    ]

    @Test(arguments: rfc3986)
    func resolvesAsRFC3986Says(_ reference: String, _ expected: String) {
        #expect(URLReference.resolve(reference, against: "http://a/b/c/d;p?q") == expected)
    }

    @Test func leavesReferenceAloneWithoutAbsoluteBase() {
        #expect(URLReference.resolve("/x", against: nil) == "/x")
        #expect(URLReference.resolve("x", against: "relative/base") == "x")
    }

    @Test func rewritesOnlyRelativeURLAttributesInHTML() {
        let html =
            #"<p class=x><a href="/a?b=1&amp;c">A</a> <img SRC='i.png' alt="/no"> <a href="https://k/">k</a></p>"#
        let result = HTMLLinks.absolutize(html, base: "http://example.org/dir/page")
        #expect(
            result
                == #"<p class=x><a href="http://example.org/a?b=1&amp;c">A</a> <img SRC='http://example.org/dir/i.png' alt="/no"> <a href="https://k/">k</a></p>"#
        )
    }
}
