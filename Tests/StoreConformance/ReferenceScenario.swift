import FeedModel
import FeedState
import Testing

/// One sequence of every kind of call, through the store and through the
/// reference (the memory store): after each step, everything the two give
/// back is the same.
extension StoreConformance {
    /// Feeds a, b, c, d on four hosts; each step a list of calls.
    static let steps: [(String, @Sendable (any StateStore) throws -> Void)] = {
        let (a, b, c, d) = (
            "http://a.example/a.xml", "http://b.example/b.xml", "http://c.example/c.xml", "http://d.example/d.xml"
        )
        let moved = "http://e.example/a.xml"
        return [
            (
                "first fetches",
                { store in
                    try store.record(
                        Sample.fetched(a, Sample.listing("a1", "a2", "a3", "a4", day: 0), at: Sample.time(0)))
                    try store.record(Sample.fetched(b, Sample.listing("b1", "b2", "b3", day: 0), at: Sample.time(0)))
                    try store.record(Sample.failed(c, "refused", at: Sample.time(0), status: nil))
                    try store.record(Sample.fetched(d, Sample.listing("d1", "d2", day: 0), at: Sample.time(0)))
                    _ = try store.commit()
                }
            ),
            (
                "a day later: changed, not modified, failing, gone",
                { store in
                    try store.record(
                        Sample.fetched(
                            a, Sample.listing("a5", "a1", "a3", day: 1), at: Sample.time(1), etag: "\"2\"",
                            restamping: true))
                    try store.record(Sample.failed(c, "HTTP 410", at: Sample.time(1), status: 410, gone: true))
                    _ = try store.commit()
                    try store.record(all: [
                        Sample.notModified(b, at: Sample.time(1), notBefore: Sample.time(1, 60)),
                        Sample.skipped(d, at: Sample.time(1), reported: Sample.deferred),
                    ])
                    try store.prune(feeds: [a], keepDays: 30, keepPerFeed: 5, now: Sample.time(1))
                }
            ),
            (
                "a moves; b lists nothing; d is fetched whole again",
                { store in
                    try store.record(
                        Sample.fetched(a, Sample.listing("a5", "a6", day: 2), at: Sample.time(2), movedTo: moved))
                    try store.record(Sample.fetched(b, [], at: Sample.time(2)))
                    _ = try store.commit()
                    try store.forgetValidators(of: [d])
                    try store.prune(feeds: [a, b], keepDays: 30, keepPerFeed: 3, now: Sample.time(2))
                }
            ),
            (
                "a renamed and fetched there; a full pass",
                { store in
                    try store.rename(feed: a, to: moved)
                    try store.record(Sample.notModified(moved, at: Sample.time(3)))
                    try store.record(Sample.fetched(d, Sample.listing("d2", "d3", day: 3), at: Sample.time(3)))
                    _ = try store.commit()
                    try store.prune(feeds: nil, keepDays: 1, keepPerFeed: 100, now: Sample.time(4))
                }
            ),
            (
                "retention after 100 days",
                { store in
                    try store.record(Sample.fetched(moved, Sample.listing("a7", day: 100), at: Sample.time(100)))
                    _ = try store.commit()
                    try store.prune(feeds: [moved], keepDays: 90, keepPerFeed: 100, now: Sample.time(100))
                    try store.prune(feeds: [], keepDays: 90, keepPerFeed: 100, now: Sample.time(101))
                }
            ),
        ]
    }()

    static let sameFactsAsTheReference = Scenario<StoreFactory>(
        "the same calls give the same facts as the reference, step by step"
    ) { factory in
        let store = try await factory.make()
        let reference = try await StoreFactory.reference.make()
        for (name, step) in steps {
            try step(store)
            try step(reference)
            let differences = try StoreFacts(of: store).differences(from: StoreFacts(of: reference))
            #expect(differences.isEmpty, "\(factory.name), \(name): \(differences.joined(separator: "\n"))")
        }
        #expect(try store.feeds().count == 4, "the sequence did what it is meant to")
    }
}
