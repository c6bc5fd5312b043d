import FeedModel
import FeedState
import Testing

/// A whole state copied from one store into another (`CopyableStateStore`,
/// as `feedmerge state copy` does it): the copy gives back the same facts,
/// and goes on as the original would.
extension StoreConformance {
    /// The copy as the command makes it: in batches, then retention's last pass and the merged feed's id.
    static func copy(_ source: any CopyableStateStore, into target: any CopyableStateStore) throws -> [String] {
        var urls: [String] = []
        var batch: [FeedSnapshot] = []
        try source.exportFeeds { snapshot throws(StateError) in
            urls.append(snapshot.record.url)
            batch.append(snapshot)
            if batch.count >= 2 {
                try target.importFeeds(batch)
                batch = []
            }
        }
        try target.importFeeds(batch)
        try target.setLastFullPrune(try source.lastFullPrune())
        if let id = try source.mergedFeedID() { _ = try target.keepMergedFeedID(id) }
        #expect(try target.commit().isEmpty)
        return urls
    }

    /// What a copyable store does with what it is given whole: a damaged document.
    static let copyable: [Scenario<CopyableStoreFactory>] = [
        Scenario("a damaged document: its history says so, retention leaves it, a fetch replaces it") { factory in
            let store = try await factory.make()
            let record = FeedRecord(url: url, firstSeen: Sample.time(0))
            do throws(StateError) {
                try store.importFeeds([FeedSnapshot(record: record, document: [0xFF, 0x00], dates: nil)])
            } catch {
                // A store that cannot hold it refuses it whole (the memory store keeps entries decoded).
                #expect(error.kind == .damaged, "\(factory.name): \(error)")
                #expect(try store.feed(url) == nil)
                return
            }
            let read = #expect(throws: StateError.self, "\(factory.name)") { try store.history(of: url) }
            #expect(read?.kind == .damaged, "\(String(describing: read))")
            try store.prune(feeds: [url], keepDays: 0, keepPerFeed: 0, now: Sample.time(1))
            try store.prune(feeds: nil, keepDays: 0, keepPerFeed: 0, now: Sample.time(1))
            #expect(throws: StateError.self, "left as it is") { try store.history(of: url) }
            try store.forgetValidators(of: [url])
            try store.store(Sample.fetched(url, [Sample.entry("a")], at: Sample.time(2)))
            #expect(try store.ids(url) == ["urn:sample:a"], "replaced by the fetch")
            #expect(try store.feed(url)?.firstSeen == Sample.time(0))
        }
    ]

    static let copying: [Scenario<CopyPair>] = [
        Scenario("a copy gives back every fact of the original, and goes on as it would") { pair in
            let source = try await pair.from.make()
            for (_, step) in steps { try step(source) }
            _ = try source.keepMergedFeedID(42)
            let target = try await pair.to.make()
            #expect(try target.lastFullPrune() == 0)
            #expect(try target.feeds().isEmpty, "read first, as the command reads it")
            let urls = try copy(source, into: target)
            #expect(
                try target.ids("http://d.example/d.xml") == source.ids("http://d.example/d.xml"),
                "\(pair.testDescription): a feed's entries, read before anything else is")
            #expect(
                urls == urls.sorted() && urls.count == 4, "\(pair.testDescription): one feed at a time, in URL order")
            let differences = try StoreFacts(of: target).differences(from: StoreFacts(of: source))
            #expect(differences.isEmpty, "\(pair.testDescription): \(differences.joined(separator: "\n"))")
            #expect(try target.lastFullPrune() == source.lastFullPrune() && target.lastFullPrune() > 0)
            #expect(try target.mergedFeedID() == 42)
            // The same next fetch on both: the copy kept the first-seen dates.
            let moved = "http://e.example/a.xml"
            for store in [source, target] as [any StateStore] {
                try store.store(
                    Sample.fetched(moved, [Sample.entry("a7"), Sample.entry("a8")], at: Sample.time(101)))
            }
            let after = try StoreFacts(of: target).differences(from: StoreFacts(of: source))
            #expect(after.isEmpty, "\(pair.testDescription), after a fetch: \(after.joined(separator: "\n"))")
            #expect(
                try target.stored(moved).entries.first { $0.entry.id == "urn:sample:a7" }?.firstSeen == Sample.time(100)
            )
        },
        Scenario("a copy into a store that holds the feed adds none of the batch") { pair in
            let source = try await pair.from.make()
            try source.store(Sample.fetched(url, [Sample.entry("a")], at: Sample.time(0)))
            try source.store(Sample.fetched(other, [Sample.entry("b")], at: Sample.time(0)))
            let target = try await pair.to.make()
            try target.store(Sample.fetched(other, [Sample.entry("c")], at: Sample.time(1)))
            var snapshots: [FeedSnapshot] = []
            try source.exportFeeds { snapshots.append($0) }
            #expect(snapshots.map(\.record.url) == [url, other])
            #expect(throws: StateError.self, "\(pair.testDescription)") { try target.importFeeds(snapshots) }
            #expect(try target.feed(url) == nil, "one transaction per call: none of it")
            #expect(try target.ids(other) == ["urn:sample:c"])
        },
    ]
}
