import FeedModel
import Testing

@testable import FeedState

/// Retention's one rule, which every store persists (`RetentionScenarios` checks each store keeps what it decides).
@Suite struct RetentionRuleTests {
    static let day: Int64 = 86_400
    static let now = Timestamp(secondsSince1970: 100 * day)

    static func place(_ key: String, seenDaysAgo days: Int64, position: Int = 0) -> RetentionRule.Place {
        RetentionRule.Place(lastSeen: now.secondsSince1970 - days * day, position: position, key: key)
    }

    @Test func entriesStillListedStayHoweverOldOrMany() {
        let rule = RetentionRule(keepDays: 30, keepPerFeed: 1, now: Self.now)
        // All three seen in the last fetch that listed entries, 90 days ago: still listed.
        let places = (0..<3).map { Self.place("e\($0)", seenDaysAgo: 90, position: $0) }
        #expect(rule.kept(places) == nil)
    }

    @Test func unlistedEntriesGoOnceOlderThanTheCutoff() {
        let rule = RetentionRule(keepDays: 30, keepPerFeed: 100, now: Self.now)
        let places = [
            Self.place("listed", seenDaysAgo: 0), Self.place("recent", seenDaysAgo: 29),
            Self.place("old", seenDaysAgo: 31), Self.place("at-cutoff", seenDaysAgo: 30),
        ]
        #expect(rule.kept(places) == [0, 1, 3])
    }

    @Test func beyondTheNewestPerFeedInTheStoresOrderUnlistedEntriesGo() {
        let rule = RetentionRule(keepDays: 365, keepPerFeed: 3, now: Self.now)
        let places = [
            Self.place("b", seenDaysAgo: 2, position: 1), Self.place("listed", seenDaysAgo: 0),
            Self.place("c", seenDaysAgo: 3), Self.place("a", seenDaysAgo: 2, position: 1),
            Self.place("d", seenDaysAgo: 2, position: 0),
        ]
        // The store's order: listed, then d (position 0), a, b (same place: by key), then c.
        #expect(rule.kept(places) == [1, 3, 4])
        #expect(places.sorted(by: RetentionRule.Place.inStoreOrder).map(\.key) == ["listed", "d", "a", "b", "c"])
    }

    @Test func aFeedWithNoEntriesKeepsAll() {
        #expect(RetentionRule(keepDays: 1, keepPerFeed: 1, now: Self.now).kept([]) == nil)
    }
}
