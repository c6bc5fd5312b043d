import FeedModel
import FeedState
import Testing

/// What a feed's history (`history(of:)`) gives back after its fetches.
extension StoreConformance {
    static let historyScenarios: [Scenario<StoreFactory>] = [
        Scenario("a listing's entries: first seen, last seen, own dates and places, in the store's order") { factory in
            let store = try await factory.make()
            #expect(try store.history(of: url).summary.count == 0, "\(factory.name): nothing stored yet")
            #expect(try store.history(of: url).sightings.isEmpty)
            let a = Sample.entry("a", date: Sample.time(-2))
            let b = Sample.entry("b")
            let c = Sample.entry("c", date: Sample.time(-1))
            try store.store(Sample.fetched(url, [a, b, c], at: Sample.time(0)))
            var history = try store.history(of: url)
            #expect(history.sightings.count == 3)
            #expect(
                history.sightings[Sample.key(a)]
                    == EntrySighting(
                        firstSeen: Sample.time(0), lastSeen: Sample.time(0), firstDate: Sample.time(-2),
                        firstPosition: 0))
            #expect(history.sightings[Sample.key(b)]?.firstDate == nil)
            #expect(history.sightings[Sample.key(c)]?.firstPosition == 2)
            #expect(history.summary.count == 3 && history.summary.newest == Sample.time(0), "b: first seen")
            var read = history.entries(notOlderThan: nil, except: [])
            #expect(read.unreadable == 0)
            #expect(read.entries.map(\.entry) == [a, b, c], "each entry as it was listed, in feed order")
            #expect(read.entries.map(\.position) == [0, 1, 2])
            // The next listing: a edited, b dropped, d new and first.
            let edited = Sample.entry("a", date: Sample.time(1), title: "a, edited")
            let d = Sample.entry("d")
            try store.store(Sample.fetched(url, [d, edited, c], at: Sample.time(1)))
            history = try store.history(of: url)
            read = history.entries(notOlderThan: nil, except: [])
            #expect(read.entries.map(\.entry.id) == ["urn:sample:d", "urn:sample:a", "urn:sample:c", "urn:sample:b"])
            let byID = Dictionary(read.entries.map { ($0.entry.id ?? "", $0) }) { first, _ in first }
            let storedA = try #require(byID["urn:sample:a"])
            #expect(storedA.entry.title?.value == "a, edited" && storedA.entry.published == Sample.time(1))
            #expect(storedA.firstSeen == Sample.time(0) && storedA.lastSeen == Sample.time(1))
            #expect(storedA.firstDate == Sample.time(-2), "the date first seen stays")
            #expect(storedA.position == 1 && storedA.firstPosition == 0)
            #expect(storedA.latestDate == Sample.time(1))
            #expect(byID["urn:sample:b"]?.lastSeen == Sample.time(0), "a dropped entry stays, last seen then")
            #expect(byID["urn:sample:d"]?.firstSeen == Sample.time(1) && byID["urn:sample:d"]?.firstPosition == 0)
            #expect(history.summary.count == 4 && history.summary.newest == Sample.time(1))
            // What a run asks for: the entries not older than a date, but for those it has.
            let recent = history.entries(notOlderThan: Sample.time(0, 1), except: [Sample.key(d)])
            #expect(recent.entries.map(\.entry.id) == ["urn:sample:a"], "b and c are older; d is the run's")
            let lazy = history.lazyEntries(notOlderThan: Sample.time(0, 1))
            #expect(lazy.entries.map(\.key) == [Sample.key(d), Sample.key(edited)] && lazy.unreadable == 0)
            #expect(lazy.entries.last?.entry == edited && lazy.entries.last?.published == Sample.time(1))
            if let dates = try store.storedDates()[url] {
                #expect(dates.count == 4 && dates.lastFirstSeen == Sample.time(1).secondsSince1970)
                #expect(dates.latest == Sample.time(1).secondsSince1970)
            }
        },
        Scenario("a part's feeds read by URL: each record and stored dates as every feed's read gives them") {
            factory in
            let store = try await factory.make()
            try store.store(Sample.fetched(url, [Sample.entry("a", date: Sample.time(-1))], at: Sample.time(0)))
            try store.store(Sample.fetched(other, [Sample.entry("a"), Sample.entry("b")], at: Sample.time(1)))
            let unknown = "https://example.org/never-stored.xml"
            let part = try store.feeds([other, unknown])
            #expect(Set(part.keys) == [other], "\(factory.name): only the part's known feeds")
            let every = try store.feeds()
            let record = try #require(part[other]?.record)
            #expect(StoreFacts.describe(record) == StoreFacts.describe(try #require(every[other])))
            // A store that keeps no bounds says none (its feeds are read whole); one that keeps them, the same.
            if let dates = part[other]?.dates { #expect(dates == (try store.storedDates())[other]) }
            #expect(try store.feeds([]).isEmpty)
        },
        Scenario("an empty listing keeps the stored entries; another feed's are its own") { factory in
            let store = try await factory.make()
            try store.store(Sample.fetched(url, [Sample.entry("a")], at: Sample.time(0)))
            try store.store(Sample.fetched(other, [Sample.entry("a"), Sample.entry("b")], at: Sample.time(0)))
            try store.store(Sample.fetched(url, [], at: Sample.time(1)))
            #expect(try store.ids(url) == ["urn:sample:a"], "\(factory.name)")
            #expect(try store.stored(url).entries.first?.lastSeen == Sample.time(0))
            #expect(try store.ids(other) == ["urn:sample:a", "urn:sample:b"])
            #expect(try store.feed(url)?.lastReport?.entriesInFeed == 0)
        },
    ]
}
