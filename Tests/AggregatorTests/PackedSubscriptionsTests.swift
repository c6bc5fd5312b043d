import FeedFetch
import Foundation
import Subscriptions
import Testing

/// A list packed (as a worker holds it) reads back as the same list held
/// whole: every field of every subscription, in order, each feed once by the
/// same rule, found by its URL as listed.
@Suite struct PackedSubscriptionsTests {
    static let opml = """
        <?xml version="1.0"?>
        <opml version="2.0">
          <head><title>Packed</title><ownerName>Ann</ownerName></head>
          <body>
            <outline xmlUrl="https://a.example/feed" title="Ä &amp; ✓" htmlUrl="https://a.example/" face="a.png"/>
            <outline text="Friends">
              <outline text="B" xmlUrl="https://b.example/feed" type="rss" filter="cats"/>
              <outline text="" xmlUrl="https://c.example/feed"/>
            </outline>
            <outline xmlUrl="HTTPS://A.example:443/feed" text="the same feed again"/>
            <outline xmlUrl="https://d.example/\(String(repeating: "long/", count: 60))feed" text="D"/>
          </body>
        </opml>
        """

    func read(_ text: String, into list: inout some SubscriptionCollection) throws {
        try list.add(opml: Array(text.utf8), source: "list.opml", localFile: "/lists/list.opml", namesLocalFiles: true)
    }

    @Test func readsBackAsTheListHeldWhole() throws {
        var whole = SubscriptionList()
        var packed = PackedSubscriptions()
        try read(Self.opml, into: &whole)
        try read(Self.opml, into: &packed)
        #expect(whole.subscriptions.count == 4, "the second listing of a.example is dropped")
        #expect(packed.indices.map { packed.subscription(at: $0) } == whole.subscriptions)
        #expect(Array(packed.urls) == whole.subscriptions.map(\.url))
        #expect(packed.warnings == whole.warnings && packed.warnings.contains { $0.contains("more than once") })
        #expect(packed.title == "Packed" && packed.ownerName == "Ann")
        #expect(
            PackedSubscriptions(whole).indices.map { PackedSubscriptions(whole).subscription(at: $0) }
                == whole.subscriptions)
        for subscription in whole.subscriptions {
            #expect(packed.subscription(for: subscription.url) == subscription)
            #expect(packed.contains(subscription.url))
        }
        #expect(packed.subscription(for: "HTTPS://A.example:443/feed") == nil, "found as listed, not as normalized")
        #expect(!packed.contains("https://e.example/feed"))
    }

    /// Enough feeds for the table to grow many times, every one still found.
    @Test func growsAndFindsEveryFeed() {
        var packed = PackedSubscriptions()
        var whole = SubscriptionList()
        for number in 0..<20_000 {
            let subscription = Subscription(
                url: "http://127.0.0.1:\(8000 + number % 250)/f/\(number).xml",
                title: number.isMultiple(of: 3) ? nil : "Feed \(number)",
                folder: number.isMultiple(of: 2) ? [] : ["odd"], opmlFile: "/lists/\(number / 5_000).opml")
            packed.add(subscription, read: nil)
            whole.add(subscription, read: nil)
        }
        packed.add(Subscription(url: "HTTP://127.0.0.1:8000/f/0.xml/"), read: nil)
        #expect(packed.count == 20_000 && packed.warnings.count == 1)
        #expect(
            packed.indices.allSatisfy {
                packed.subscription(for: whole.subscriptions[$0].url) == whole.subscriptions[$0]
            })
    }

    /// What the subscriptions share changes for each of them, their own fields kept.
    @Test func changesWhatIsShared() throws {
        var packed = PackedSubscriptions()
        try read(Self.opml, into: &packed)
        packed.changeShared { shared in
            #expect(shared.url.isEmpty && shared.title == nil && shared.htmlURL == nil)
            shared.properties["seen"] = "yes"
        }
        packed.add(Subscription(url: "https://e.example/feed", title: "E"), read: nil)
        #expect(packed.indices.dropLast().allSatisfy { packed.subscription(at: $0).properties["seen"] == "yes" })
        #expect(
            packed.subscription(at: 0).title == "Ä & ✓" && packed.subscription(at: 0).htmlURL == "https://a.example/")
        #expect(packed.subscription(for: "https://e.example/feed")?.properties == [:])
    }

    /// Several list files read into a packed list as into one held whole, a feed listed
    /// in two of them once; a list over `--max-bytes` says how to read it.
    @Test func readsListFilesAsAWholeListDoes() async throws {
        let w = try StateTests.Workspace("packed-lists")
        try Self.opml.write(toFile: w.path("one.opml"), atomically: true, encoding: .utf8)
        try """
        <opml version="2.0"><body>
          <outline xmlUrl="https://c.example/feed" text="listed in both"/>
          <outline xmlUrl="https://f.example/feed" text="F"/>
        </body></opml>
        """.write(toFile: w.path("two.opml"), atomically: true, encoding: .utf8)
        let sources = [w.path("one.opml"), w.path("two.opml")]
        let client = HTTPClient()
        let whole = try await SourceReader.read(sources, client: client)
        var packed = PackedSubscriptions()
        try await SourceReader.read(sources, client: client, into: &packed)
        #expect(whole.subscriptions.count == 5)
        #expect(packed.indices.map { packed.subscription(at: $0) } == whole.subscriptions)
        #expect(packed.warnings == whole.warnings && packed.warnings.count == 2)
        var small = FetchConfiguration()
        small.maximumBodyBytes = 100
        do {
            try await SourceReader.read(sources, client: HTTPClient(configuration: small), into: &packed)
            Issue.record("a list over the limit is read")
        } catch {
            #expect(error.description.hasSuffix("(a longer list needs a larger --max-bytes)"), "\(error)")
        }
    }
}
