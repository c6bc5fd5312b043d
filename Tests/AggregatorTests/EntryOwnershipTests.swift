import Basics
import FeedModel
import Testing

@testable import TimelineMerge

/// One feed can never erase another feed's entries: a copy from one feed
/// replaces or hides another feed's entry only when the name they share (id
/// or link) belongs to the replacing feed's own site. Every case runs through
/// both ways into the timeline: entries given whole (a fetched feed) and
/// deferred (a feed served from the state).
@Suite struct EntryOwnershipTests {
    static let now = Timestamp(secondsSince1970: 1_700_000_000)

    static let victim = FeedSource(
        title: "Victim", link: "https://victim.example/", feedURL: "https://victim.example/feed.xml",
        authors: [Person(name: "Vic Tim")])
    static let mallory = FeedSource(
        title: "Mallory", link: "https://mallory.example/", feedURL: "https://feeds.mallory.example/rss",
        authors: [Person(name: "Mallory")])
    static let aggregator = FeedSource(
        title: "Aggregator", link: "https://news.aggregator.example/", feedURL: "https://news.aggregator.example/rss")

    static func entry(_ id: String?, link: String?, title: String, at seconds: Int64) -> Entry {
        var entry = Entry()
        entry.id = id
        entry.link = link
        entry.title = Text(title)
        entry.published = Timestamp(secondsSince1970: seconds)
        return entry
    }

    /// The feeds inserted in list order (a feed's place is its index), whole or deferred;
    /// `arrival` is the order they come in.
    static func merge(
        _ feeds: [(source: FeedSource, entries: [Entry])], deferred: Bool, arrival: [Int]? = nil, limit: Int? = nil
    ) -> [MergedEntry] {
        var rules = TimelineRules(now: now)
        rules.limit = limit
        var timeline = Timeline(rules: rules)
        for n in arrival ?? Array(feeds.indices) {
            let (source, entries) = feeds[n]
            let dates = entries.map(\.published)
            if deferred {
                let made = entries.map { entry in Timeline.Deferred(id: entry.id, link: entry.link) { entry } }
                timeline.insert(deferred: made, dates: dates, source: source, subscription: n)
            } else {
                let feed = ParsedFeed(format: .rss20, metadata: FeedMetadata(), entries: entries)
                timeline.insert(feed: feed, dates: dates, source: source, subscription: n)
            }
        }
        return timeline.takeEntries()
    }

    static let victimPost = entry(
        "https://victim.example/?p=1", link: "https://victim.example/2024/05/post/", title: "Victim's post",
        at: 1_600_000_000)

    /// What must hold after an attack: the victim's entry is there, with its text and credit.
    static func expectVictimStands(_ merged: [MergedEntry], _ comment: Comment) {
        let kept = merged.filter { $0.source.feedURL == victim.feedURL }
        #expect(kept.count == 1, comment)
        #expect(kept.first?.entry.title?.value == "Victim's post", comment)
        #expect(kept.first?.entry.authors.map(\.name) == ["Vic Tim"], comment)
        #expect(kept.first?.date.secondsSince1970 == 1_600_000_000, comment)
        #expect(kept.first?.alsoIn == [], "the attacker is not credited with the victim's post; \(comment)")
    }

    /// The attack by id: another feed reuses the victim's URI id (a permalink `guid`, a `tag:`
    /// of the victim's domain), dated one second earlier, with its own text. It keeps its
    /// entry as its own; the victim's stays, whichever is listed first.
    @Test(arguments: [false, true])
    func anotherFeedReusingAVictimsIdDatedEarlierCannotHideIt(deferred: Bool) {
        for victimID in ["https://victim.example/?p=1", "tag:victim.example,2024:1", "http://www.victim.example/p/1"] {
            var post = Self.victimPost
            post.id = victimID
            for attackerLink in ["https://mallory.example/x", nil] {
                let attack = Self.entry(victimID, link: attackerLink, title: "Mallory's text", at: 1_599_999_999)
                for listed in [[0, 1], [1, 0]] {
                    let feeds = [(Self.victim, [post]), (Self.mallory, [attack])]
                    let ordered = listed.map { feeds[$0] }
                    let merged = Self.merge(ordered, deferred: deferred)
                    let comment: Comment = "id \(victimID), attacker link \(attackerLink ?? "none"), order \(listed)"
                    #expect(merged.count == 2, comment)
                    Self.expectVictimStands(merged, comment)
                    let own = merged.first { $0.source.feedURL == Self.mallory.feedURL }
                    #expect(own?.entry.title?.value == "Mallory's text", comment)
                    #expect(own?.alsoIn == [], comment)
                }
            }
        }
    }

    /// The attack by link: another feed gives its entry the victim's link (spelt differently:
    /// `http`, no trailing slash, a `utm_` parameter), dated one second earlier.
    @Test(arguments: [false, true])
    func anotherFeedReusingAVictimsLinkDatedEarlierCannotHideIt(deferred: Bool) {
        for attackerID in ["tag:mallory.example,2024:9", "https://mallory.example/9", "9", nil] {
            let attack = Self.entry(
                attackerID, link: "http://victim.example/2024/05/post?utm_source=rss", title: "Mallory's text",
                at: 1_599_999_999)
            for listed in [[0, 1], [1, 0]] {
                let feeds = [(Self.victim, [Self.victimPost]), (Self.mallory, [attack])]
                let merged = Self.merge(listed.map { feeds[$0] }, deferred: deferred)
                let comment: Comment = "attacker id \(attackerID ?? "none"), order \(listed)"
                #expect(merged.count == 2, comment)
                Self.expectVictimStands(merged, comment)
                #expect(merged.contains { $0.entry.title?.value == "Mallory's text" }, comment)
            }
        }
    }

    /// Before this rule the earlier copy won: the attack worked. The same two feeds, where
    /// neither owns the link, still merge (what the rule keeps of today's behaviour).
    @Test(arguments: [false, true])
    func copiesOfAThirdSitesPostStillMergeAsBefore(deferred: Bool) {
        let third = "https://third.example/2024/story"
        let first = Self.entry("https://news.aggregator.example/item/1", link: third, title: "Story", at: 1_000)
        let second = Self.entry("tag:mallory.example,2024:story", link: third, title: "Story (copy)", at: 999)
        let merged = Self.merge([(Self.aggregator, [first]), (Self.mallory, [second])], deferred: deferred)
        #expect(merged.count == 1)
        #expect(merged.first?.source.feedURL == Self.mallory.feedURL, "the earlier-dated copy, as before")
        #expect(merged.first?.alsoIn == [Self.aggregator.feedURL])
    }

    /// An id that belongs to no site (`urn:uuid:`) on a post of the victim's own site: a copy
    /// of the id dated earlier, from another site, is kept apart.
    @Test(arguments: [false, true])
    func anIdOfNoSiteCannotBeUsedToHideAPostOfItsOwnSite(deferred: Bool) {
        let uuid = "urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a"
        var post = Self.victimPost
        post.id = uuid
        for attackerLink in ["https://mallory.example/x", nil] {
            let attack = Self.entry(uuid, link: attackerLink, title: "Mallory's text", at: 1_599_999_999)
            for listed in [[0, 1], [1, 0]] {
                let feeds = [(Self.victim, [post]), (Self.mallory, [attack])]
                let merged = Self.merge(listed.map { feeds[$0] }, deferred: deferred)
                let comment: Comment = "attacker link \(attackerLink ?? "none"), order \(listed)"
                #expect(merged.count == 2, comment)
                Self.expectVictimStands(merged, comment)
            }
        }
    }

    /// Two feeds of one site that give one post (one `urn:uuid:` id) different links of the
    /// site: one entry, as before; two sites' posts sharing only such an id stay two.
    @Test(arguments: [false, true])
    func postsSharingOnlyAnIdOfNoSiteMergeWithinOneSiteOnly(deferred: Bool) {
        let uuid = "urn:uuid:6f1c2e1a-0000-4000-8000-000000000042"
        let person = FeedSource(link: "https://alice.example.com/", feedURL: "https://alice.example.com/feed/")
        let category = FeedSource(link: "https://www.example.com/swift/", feedURL: "https://www.example.com/swift/feed")
        let post = Self.entry(uuid, link: "https://alice.example.com/2024/post", title: "Post", at: 1_000)
        let inCategory = Self.entry(uuid, link: "https://www.example.com/swift/post", title: "Post", at: 999)
        let merged = Self.merge([(person, [post]), (category, [inCategory])], deferred: deferred)
        #expect(merged.count == 1)
        #expect(merged.first?.source.feedURL == category.feedURL)
        #expect(merged.first?.alsoIn == [person.feedURL])
        let other = FeedSource(link: "https://bob.example.net/", feedURL: "https://bob.example.net/feed")
        let apart = Self.entry(uuid, link: "https://bob.example.net/post", title: "Bob's post", at: 999)
        let two = Self.merge([(person, [post]), (other, [apart])], deferred: deferred)
        #expect(two.map(\.entry.title?.value) == ["Post", "Bob's post"])
    }

    /// The same post in a person's feed and a category feed of the same site (one registrable
    /// domain, different hosts): one entry, the earlier-dated copy, the other feed credited.
    @Test(arguments: [false, true])
    func aPersonsFeedAndACategoryFeedOfOneSiteStillMerge(deferred: Bool) {
        let person = FeedSource(
            title: "Alice", link: "https://alice.example.com/", feedURL: "https://alice.example.com/feed/")
        let category = FeedSource(
            title: "Swift", link: "https://www.example.com/category/swift/",
            feedURL: "https://www.example.com/category/swift/feed/")
        let post = Self.entry(
            "https://alice.example.com/?p=42", link: "https://alice.example.com/2024/05/post/", title: "Post",
            at: 1_000)
        var inCategory = post
        inCategory.published = Timestamp(secondsSince1970: 999)
        inCategory.title = Text("Post (category)")
        for listed in [[0, 1], [1, 0]] {
            let feeds = [(person, [post]), (category, [inCategory])]
            let merged = Self.merge(listed.map { feeds[$0] }, deferred: deferred)
            #expect(merged.count == 1, "order \(listed)")
            #expect(merged.first?.source.feedURL == category.feedURL, "the earlier copy, as before")
            #expect(merged.first?.alsoIn == [person.feedURL])
        }
    }

    /// An aggregator re-publishing a post with its original link (and an id of its own), at
    /// the same time or later: the owner's copy is the entry, the aggregator is credited,
    /// whichever is listed first; on equal dates the owner wins the tie.
    @Test(arguments: [false, true])
    func anAggregatorsRepublicationIsCreditedOnTheOwnersCopy(deferred: Bool) {
        for (delay, aggregatorID) in [(0, "https://news.aggregator.example/item/77"), (3600, nil), (60, "77")] {
            let copy = Self.entry(
                aggregatorID, link: "https://victim.example/2024/05/post/", title: "Victim's post (via aggregator)",
                at: 1_600_000_000 + Int64(delay))
            for listed in [[0, 1], [1, 0]] {
                let feeds = [(Self.victim, [Self.victimPost]), (Self.aggregator, [copy])]
                let merged = Self.merge(listed.map { feeds[$0] }, deferred: deferred)
                let comment: Comment = "delay \(delay), order \(listed)"
                #expect(merged.count == 1, comment)
                #expect(merged.first?.source.feedURL == Self.victim.feedURL, comment)
                #expect(merged.first?.entry.title?.value == "Victim's post", comment)
                #expect(merged.first?.alsoIn == [Self.aggregator.feedURL], comment)
            }
        }
    }

    /// The owner's copy dated earlier than a copy elsewhere: it stays the entry and credits it
    /// (as before); the same when the owner's site is named by its link only (a feed served
    /// from another host, a feed proxy).
    @Test(arguments: [false, true])
    func theOwnersEarlierCopyStaysAndCreditsTheOther(deferred: Bool) {
        let proxied = FeedSource(
            title: "Victim", link: "https://victim.example/", feedURL: "https://feeds.feedproxy.example/victim")
        let copy = Self.entry(
            "https://victim.example/?p=1", link: "https://victim.example/2024/05/post/", title: "Copy",
            at: 1_600_000_005
        )
        let merged = Self.merge([(Self.aggregator, [copy]), (proxied, [Self.victimPost])], deferred: deferred)
        #expect(merged.count == 1)
        #expect(merged.first?.source.feedURL == proxied.feedURL)
        #expect(merged.first?.alsoIn == [Self.aggregator.feedURL])
    }

    /// Whichever way the feeds come in (whole or deferred), the timeline is the same, bounded
    /// or not; unbounded, so is the order they arrive in: owners, re-publications, attacks,
    /// copies of third sites.
    @Test func arrivalOrderAndDeferringDoNotChangeTheResult() {
        var feeds: [(source: FeedSource, entries: [Entry])] = []
        for n in 0..<8 {
            let site = "https://site\(n % 4).example"
            let source = FeedSource(
                title: "Feed \(n)", link: site + "/", feedURL: n < 4 ? site + "/feed" : "https://agg\(n).example/rss")
            let entries = (0..<12).map { k -> Entry in
                // Feeds 4-7 copy posts of sites 0-3: by id, by link, earlier or later.
                let owner = "https://site\((n + k) % 4).example"
                let id = k % 3 == 0 ? "\(owner)/?p=\(k)" : "tag:agg\(n).example,2024:\(k)"
                let link = k % 2 == 0 ? "\(owner)/post/\(k)" : "https://third.example/\(k)"
                return Self.entry(id, link: link, title: "\(n)/\(k)", at: Int64(1_000 + (n * 7 + k * 13) % 40))
            }
            feeds.append((source, entries))
        }
        for limit in [nil, 20] {
            let whole = Self.merge(feeds, deferred: false, limit: limit)
            #expect(whole.contains { !$0.alsoIn.isEmpty }, "the corpus has merged copies")
            #expect(Self.merge(feeds, deferred: true, limit: limit) == whole)
        }
        let whole = Self.merge(feeds, deferred: false)
        #expect(Self.merge(feeds, deferred: false, arrival: feeds.indices.reversed()) == whole)
        #expect(Self.merge(feeds, deferred: true, arrival: [3, 6, 0, 7, 1, 5, 2, 4]) == whole)
    }
}

/// The registrable domain (eTLD+1) of hosts and of the URIs entries are named by.
@Suite struct RegistrableDomainTests {
    @Test(arguments: [
        ("blog.example.com", "example.com"),
        ("WWW.Example.COM.", "example.com"),
        ("www.example.co.uk", "example.co.uk"),
        ("co.uk", "co.uk"),  // a public suffix itself: the whole host
        ("alice.github.io", "alice.github.io"),  // github.io is a public suffix (its private section)
        ("a.b.s3.amazonaws.com", "b.s3.amazonaws.com"),
        ("localhost", "localhost"),
        ("127.0.0.1", "127.0.0.1"),
        ("10.1.2.3", "10.1.2.3"),
        ("0x7f.1", "0x7f.1"),
        ("[::1]", "[::1]"),
    ])
    func ofHost(_ host: String, _ domain: String) {
        #expect(RegistrableDomain.of(host: host) == domain)
    }

    @Test(arguments: [
        ("https://user:pw@Blog.Example.com:8443/feed?x#y", "example.com"),
        ("http://127.0.0.1:8080/feed.xml", "127.0.0.1"),
        ("http://[2001:db8::1]:8080/feed", "[2001:db8::1]"),
        ("tag:blog.example.org,2024:post-1", "example.org"),
        ("tag:someone@mail.example.co.uk,2024-01-01:x", "example.co.uk"),
        ("https://alice.github.io/post", "alice.github.io"),
    ])
    func ofURI(_ uri: String, _ domain: String) {
        #expect(RegistrableDomain.of(uri: uri) == domain)
    }

    @Test func urisThatNameNoHostHaveNone() {
        for uri in ["urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a", "mailto:a@example.com", "/var/feed.xml", "", "1"] {
            #expect(RegistrableDomain.of(uri: uri) == nil, "\(uri)")
        }
        #expect(RegistrableDomain.of(host: "") == nil)
    }
}

/// Which names a feed's site owns: those whose host has one of its registrable domains.
@Suite struct FeedSiteTests {
    @Test func aSiteOwnsTheNamesOfItsRegistrableDomainsOnly() {
        let site = FeedSite(FeedSource(link: "https://www.victim.co.uk/", feedURL: "https://feeds.host.example/v"))
        #expect(site.domains == ["host.example", "victim.co.uk"])
        for owned in [
            "https://victim.co.uk/p", "http://blog.victim.co.uk:8080/p", "tag:victim.co.uk,2024:1",
            "tag:me@mail.victim.co.uk,2024:1", "https://other.host.example/x",
        ] {
            #expect(site.owns(host: RegistrableDomain.host(ofURI: owned)), "\(owned)")
        }
        for foreign in [
            "https://notvictim.co.uk/p", "https://victim.co.uk.evil.example/p", "https://co.uk/p",
            "urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a", "https://user@evil.example/@victim.co.uk",
        ] {
            #expect(!site.owns(host: RegistrableDomain.host(ofURI: foreign)), "\(foreign)")
        }
    }

    /// A host under the site's domain that the list makes a site of its own is not the site's.
    @Test func aPublicSuffixUnderTheSitesDomainIsNotItsOwn() {
        let site = FeedSite(FeedSource(feedURL: "https://amazonaws.com/feed"))
        #expect(site.owns(host: "www.amazonaws.com"))
        #expect(!site.owns(host: "bucket.s3.amazonaws.com"))
        let loopback = FeedSite(FeedSource(feedURL: "http://127.0.0.1:8080/feed.xml"))
        #expect(loopback.domains == ["127.0.0.1"])
        #expect(loopback.owns(host: RegistrableDomain.host(ofURI: "http://127.0.0.1/p")))
        #expect(!loopback.owns(host: RegistrableDomain.host(ofURI: "http://1.127.0.0.1/p")))
    }
}
