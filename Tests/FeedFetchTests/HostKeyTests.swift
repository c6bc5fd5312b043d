import Basics
import FeedFetch
import Foundation
import Testing

/// The key the per-host limit and the shared state's leases count a URL's
/// host by (`URLAuthority.host(of:)`): one spelling per host, decided from
/// the URL's text before any DNS.
@Suite struct HostKeyTests {
    @Test(arguments: [
        // Names: lower-cased, the final dot dropped, the scheme's default port dropped.
        ("http://Example.ORG/feed", "example.org"), ("http://example.org./feed", "example.org"),
        ("http://example.org:80/feed", "example.org"), ("https://example.org:443/", "example.org"),
        ("http://example.org:0080/", "example.org"), ("http://example.org:/", "example.org"),
        ("http://example.org:443/", "example.org:443"), ("https://example.org:80/", "example.org:80"),
        ("http://example.org:8080/", "example.org:8080"), ("HTTP://user:pw@Example.org:80/x", "example.org"),
        ("http://%65xample.org/", "example.org"), ("http://a.example?x=@127.0.0.1", "a.example"),
        // localhost: libcurl resolves it itself, to loopback.
        ("http://localhost/", "127.0.0.1"), ("http://LOCALHOST./", "127.0.0.1"),
        ("http://localhost:8080/", "127.0.0.1:8080"),
        // Every IPv4 spelling libcurl reads: dotted decimal.
        ("http://127.0.0.1/", "127.0.0.1"), ("http://127.1/", "127.0.0.1"), ("http://2130706433/", "127.0.0.1"),
        ("http://0x7f000001/", "127.0.0.1"), ("http://0x7F.1/", "127.0.0.1"), ("http://0177.0.0.1/", "127.0.0.1"),
        ("http://127.000.000.001/", "127.0.0.1"), ("http://127.0.0.1.:81/", "127.0.0.1:81"),
        ("http://10.1/", "10.0.0.1"),
        // IPv6: compressed, lower-case; IPv4-mapped with its IPv4 part dotted.
        ("http://[::1]/", "[::1]"), ("http://[0:0::1]:80/", "[::1]"), ("http://[0000:0000:0:0:0:0:0:0001]/", "[::1]"),
        ("https://[2001:DB8:0:0:0:0:0:1]:8443/", "[2001:db8::1]:8443"),
        ("http://[::ffff:7f00:1]/", "[::ffff:127.0.0.1]"), ("http://[::FFFF:127.0.0.1]/", "[::ffff:127.0.0.1]"),
        // No authority: a local file.
        ("/srv/feed.xml", ""), ("file:///srv/feed.xml", ""),
    ])
    func everySpellingOfAHostHasOneKey(url: String, key: String) {
        #expect(URLAuthority.host(of: url) == key, "\(url)")
    }

    /// A host as an operator names it (`--per-host HOST=N`) has the key of a URL on it.
    @Test(arguments: [
        ("Feeds.Example.org.", "feeds.example.org"), ("feeds.example.org:80", "feeds.example.org"),
        ("feeds.example.org:443", "feeds.example.org"), ("feeds.example.org:08443", "feeds.example.org:8443"),
        ("LOCALHOST", "127.0.0.1"), ("127.1:8080", "127.0.0.1:8080"), ("[0:0::1]", "[::1]"),
        ("[::1]:8080", "[::1]:8080"),
    ])
    func aNamedHostHasTheKeyOfItsURLs(named: String, key: String) {
        #expect(URLAuthority.key(ofHost: named) == key, "\(named)")
    }

    @Test func aKeyWithoutItsPortIsItsName() {
        #expect(URLAuthority.withoutPort("example.org:8080") == "example.org")
        #expect(URLAuthority.withoutPort("example.org") == "example.org")
        #expect(URLAuthority.withoutPort("[::1]:8080") == "[::1]")
        #expect(URLAuthority.withoutPort("[::1]") == "[::1]")
    }

    /// Two names for one address are two hosts: the key is made before DNS.
    @Test func differentNamesStayDifferentHosts() {
        #expect(URLAuthority.host(of: "http://a.example/") != URLAuthority.host(of: "http://b.example/"))
        #expect(URLAuthority.host(of: "http://vm/") != URLAuthority.host(of: "http://127.0.0.1/"))
        #expect(URLAuthority.host(of: "http://[::ffff:127.0.0.1]/") != URLAuthority.host(of: "http://127.0.0.1/"))
    }

    /// A host longer than any name can be keeps a bounded key, distinct per host, so that it can be indexed.
    @Test func anOverlongHostHasABoundedKey() {
        let one = URLAuthority.host(of: "http://" + String(repeating: "a", count: 100_000) + "/")
        let other = URLAuthority.host(of: "http://" + String(repeating: "a", count: 99_999) + "b/")
        #expect(one.utf8.count <= URLAuthority.maximumLength && other.utf8.count <= URLAuthority.maximumLength)
        #expect(one != other)
        let name = String(repeating: "n", count: 200) + ".example"
        #expect(URLAuthority.host(of: "http://\(name)/") == name)
    }
}
