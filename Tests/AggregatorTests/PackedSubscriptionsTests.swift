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

    /// Enough feeds for the table to grow many times and fill several chunks (one
    /// subscription longer than a chunk), every one still found; rolled back across chunks.
    /// Each with its chunks held, every full one in the file, and some of each.
    @Test(arguments: [16 << 20, 0, 3 << 20])
    func growsAndFindsEveryFeed(memoryLimit: Int) throws {
        var packed = PackedSubscriptions(memoryLimit: memoryLimit)
        var whole = SubscriptionList()
        var mark: SubscriptionMark?
        for number in 0..<20_000 {
            let title =
                number == 7_777
                ? String(repeating: "long ", count: 300_000)
                : number.isMultiple(of: 1_000) ? String(repeating: "é", count: 50_000) : "Feed \(number)"
            let subscription = Subscription(
                url: "http://127.0.0.1:\(8000 + number % 250)/f/\(number).xml",
                title: number.isMultiple(of: 3) ? nil : title,
                folder: number.isMultiple(of: 2) ? [] : ["odd"], opmlFile: "/lists/\(number / 5_000).opml")
            if number == 12_345 { mark = packed.mark }
            packed.add(subscription, read: nil)
            whole.add(subscription, read: nil)
        }
        packed.add(Subscription(url: "HTTP://127.0.0.1:8000/f/0.xml/"), read: nil)
        #expect(packed.count == 20_000 && packed.warnings.count == 1)
        // About 4.5 MB of subscriptions, in chunks of 1 MiB (one its own of 1.5 MB): every full
        // one in the file, those past 3 MiB, or none.
        let inFile = packed.bytesInFile
        let expected = [0: (3 << 20)..<(5 << 20), 3 << 20: 1..<(3 << 20)][memoryLimit] ?? 0..<1
        #expect(expected.contains(inFile), "\(inFile) bytes in the file")
        #expect(packed.indices.allSatisfy { packed.subscription(at: $0) == whole.subscriptions[$0] })
        #expect(packed.subscriptions(in: packed.indices) == whole.subscriptions)
        #expect(Array(packed.urls) == whole.subscriptions.map(\.url))
        #expect(packed.urls(in: 9_990..<10_010) == whole.subscriptions[9_990..<10_010].map(\.url))
        #expect(
            packed.indices.allSatisfy {
                packed.subscription(for: whole.subscriptions[$0].url) == whole.subscriptions[$0]
            })
        let taken = try #require(mark)
        let copy = packed
        packed.rollBack(to: taken)
        whole.rollBack(to: taken)
        #expect(packed.count == 12_345 && packed.warnings.isEmpty)
        #expect(packed.subscriptions(in: packed.indices) == whole.subscriptions)
        #expect(!packed.contains("http://127.0.0.1:8095/f/12345.xml"))
        for subscription in whole.subscriptions.suffix(3) + [Subscription(url: "http://new.example/f")] {
            #expect(
                packed.subscription(for: subscription.url) == (subscription.url.contains("new") ? nil : subscription))
        }
        packed.add(Subscription(url: "http://127.0.0.1:8095/f/12345.xml"), read: nil)
        #expect(packed.subscription(at: 12_345).url == "http://127.0.0.1:8095/f/12345.xml" && packed.warnings.isEmpty)
        // Filled again past its old end, into the file the copy shares: the copy reads what it held.
        for number in 20_000..<40_000 { packed.add(Subscription(url: "http://x.example/\(number)"), read: nil) }
        #expect(packed.count == 32_346 && packed.subscription(for: "http://x.example/39999") != nil)
        #expect(copy.count == 20_000 && copy.subscription(at: 19_999).url == "http://127.0.0.1:8249/f/19999.xml")
        #expect(copy.indices.allSatisfy { $0 >= 12_345 || copy.url(at: $0) == whole.subscriptions[$0].url })
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

    /// A list read again repaired (an HTML entity XML does not know) adds each feed once;
    /// a list that cannot be read adds nothing, whichever the collection.
    @Test func aListReadAgainOrRefusedAddsEachFeedOnce() throws {
        // Far enough into the document for the reader to have given the outlines before it.
        let before = (0..<300).map { #"<outline xmlUrl="https://a.example/\#($0)" text="A"/>"# }
        let repaired =
            #"<opml version="2.0"><body>"# + before.joined(separator: "\n")
            + #"<outline xmlUrl="https://b.example/feed" text="B&nbsp;b"/></body></opml>"#
        let expected = (0..<300).map { "https://a.example/\($0)" } + ["https://b.example/feed"]
        let refused = "<opml>\n<body>\n<outline xmlUrl=\"https://c.example/f\">\n</body></opml>"
        func check<List: SubscriptionCollection>(_ list: inout List, urls: (List) -> [String]) throws {
            try read(repaired, into: &list)
            #expect(urls(list) == expected)
            #expect(list.warnings.isEmpty, "\(list.warnings.prefix(3))")
            #expect(throws: SubscriptionError.self) { try read(refused, into: &list) }
            #expect(urls(list) == expected && list.warnings.isEmpty)
        }
        var whole = SubscriptionList()
        try check(&whole) { $0.subscriptions.map(\.url) }
        var packed = PackedSubscriptions()
        try check(&packed) { Array($0.urls) }
        #expect(packed.contains("https://a.example/299") && !packed.contains("https://c.example/f"))
        whole.add(Subscription(url: "https://c.example/f"), read: nil)
        packed.add(Subscription(url: "https://c.example/f"), read: nil)
        #expect(whole.warnings.isEmpty && packed.warnings.isEmpty, "a feed rolled back is not listed")
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
