import Testing

@testable import Commands

extension OptionParsingTests {
    @Test func webSubAddressesEachFeedByItsFileName() throws {
        let parsed = try options([
            "a.opml", "-o", "site/a.atom", "-o", "b feed.json", "-o", "-", "-o", "site/index.html",
            "--public-url", "https://p.example/feeds", "--hub", "https://hub.example/", "--hub", "http://two.example/h",
        ])
        #expect(parsed.webSub.hubs == ["https://hub.example/", "http://two.example/h"])
        #expect(parsed.webSub.publicFolder == "https://p.example/feeds/")
        let kinds = try parsed.outputs.map { try $0.resolvedFormat() }
        // Standard output has no file name and a page is not a feed: neither has an address.
        #expect(
            parsed.publicURLs(kinds: kinds) == [
                "site/a.atom": "https://p.example/feeds/a.atom", "b feed.json": "https://p.example/feeds/b%20feed.json",
            ])
        let selfOnly = try options(["a.opml", "-o", "a.atom", "-o", "-", "--self-url", "https://p.example/all"])
        #expect(
            selfOnly.publicURLs(kinds: [.feed(.atom), .feed(.atom)]) == [
                "a.atom": "https://p.example/all", "-": "https://p.example/all",
            ])
    }

    @Test func aHubNeedsAnAddressAndWebURLs() {
        #expect(error(["a.opml", "-o", "a.atom", "--hub", "https://hub.example/"])?.contains("--public-url") == true)
        #expect(
            error(["a.opml", "-o", "-", "--public-url", "https://p.example/", "--hub", "https://h.example/"]) != nil)
        #expect(
            error(["a.opml", "-o", "a.atom", "--hub", "hub.example"])?.contains("not an http or https URL") == true)
        #expect(error(["a.opml", "-o", "a.atom", "--public-url", "ftp://p.example/"]) != nil)
        #expect(error(["a.opml", "-o", "a.atom", "--public-url", "https://p.example/", "--hub", "https://h/"]) == nil)
    }
}
