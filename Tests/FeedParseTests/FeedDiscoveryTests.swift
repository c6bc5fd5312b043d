import FeedParse
import Testing

/// Which feeds an HTML page advertises, and which one is followed.
@Suite struct FeedDiscoveryTests {
    func advertised(_ head: String, page: String = "https://blog.example/posts/") -> [FeedDiscovery.Advertised] {
        FeedDiscovery.advertisedFeeds(
            in: Array("<!doctype html><html><head>\(head)</head><body></body></html>".utf8), page: page)
    }

    @Test func linksOfEachFeedTypeResolvedAgainstThePageOrItsBase() {
        let found = advertised(
            """
            <link rel="stylesheet" type="text/css" href="s.css">
            <LINK REL="Alternate" TYPE="Application/RSS+XML; charset=utf-8" TITLE="RSS" HREF="feed.xml">
            <link rel=alternate type=application/atom+xml href=/atom.xml title='Atom &amp; more'>
            <!-- <link rel="alternate" type="application/rss+xml" href="commented.xml"> -->
            <link rel="alternate" type="application/feed+json" href="https://blog.example/feed.json"/>
            <link rel="alternate" type="text/html" href="/fr/" hreflang="fr">
            <link rel="alternate stylesheet" type="application/rss+xml" href="no.xml">
            """)
        #expect(
            found.map(\.url) == [
                "https://blog.example/posts/feed.xml", "https://blog.example/atom.xml",
                "https://blog.example/feed.json",
            ])
        #expect(found.map(\.type) == ["application/rss+xml", "application/atom+xml", "application/feed+json"])
        #expect(found[1].title == "Atom & more")
        let based = advertised(
            "<base href=\"https://cdn.example/b/\"><link rel=alternate type=application/rss+xml href=f.xml>")
        #expect(based.map(\.url) == ["https://cdn.example/b/f.xml"])
        #expect(advertised("").isEmpty)
    }

    @Test func theBestIsAtomThenRSSThenJSONAndCommentsOnlyAlone() {
        func feed(_ url: String, _ type: String, _ title: String? = nil) -> FeedDiscovery.Advertised {
            FeedDiscovery.advertisedFeeds(
                in: Array(
                    "<link rel=alternate type=\"\(type)\" href=\"\(url)\" \(title.map { "title=\"\($0)\"" } ?? "")>"
                        .utf8),
                page: "https://x.example/")[0]
        }
        let rss = feed("https://x.example/rss", "application/rss+xml")
        let atom = feed("https://x.example/atom", "application/atom+xml")
        let json = feed("https://x.example/json", "application/feed+json")
        let comments = feed("https://x.example/comments", "application/atom+xml", "Comments Feed")
        #expect(FeedDiscovery.best([rss, atom, json]) == atom)
        #expect(FeedDiscovery.best([json, rss]) == rss)
        #expect(FeedDiscovery.best([comments, rss]) == rss)
        #expect(FeedDiscovery.best([comments]) == comments)
        #expect(FeedDiscovery.best([]) == nil)
    }

    @Test func anHTMLPageIsToldFromOtherDocuments() {
        #expect(FeedDiscovery.isHTML(Array("<!DOCTYPE html><p>".utf8), contentType: nil))
        #expect(FeedDiscovery.isHTML(Array("\u{FEFF}<!-- x --><HTML>".utf8), contentType: nil))
        #expect(FeedDiscovery.isHTML(Array("anything".utf8), contentType: "text/html; charset=utf-8"))
        #expect(!FeedDiscovery.isHTML(Array("<<<not xml".utf8), contentType: "application/rss+xml"))
    }
}
