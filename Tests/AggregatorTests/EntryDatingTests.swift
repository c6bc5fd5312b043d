import FeedModel
import FeedState
import Testing
import TimelineMerge

@testable import Aggregator

/// The dating policy, rule by rule: the fallback dates, the future rule,
/// restamp detection from the store's facts, and a new feed's backlog.
@Suite struct EntryDatingTests {
    static let now = Timestamp(secondsSince1970: 1_700_000_000)

    static func at(_ seconds: Int64) -> Timestamp { Timestamp(secondsSince1970: seconds) }

    static func dating(
        _ future: TimelineRules.FuturePolicy = .clamp, newFeedItems: Int = 10,
        style: TimelineRules.DatingStyle = .feedmerge
    ) -> EntryDating {
        var rules = TimelineRules(now: now)
        rules.future = future
        rules.dating = style
        return EntryDating(rules: rules, keepDays: 90, newFeedItems: newFeedItems)
    }

    static func entry(_ id: String, published: Int64? = nil, updated: Int64? = nil) -> Entry {
        var entry = Entry()
        entry.id = id
        entry.published = published.map(at)
        entry.updated = updated.map(at)
        return entry
    }

    static func feed(_ entries: [Entry], updated: Int64? = nil) -> ParsedFeed {
        var metadata = FeedMetadata()
        metadata.updated = updated.map(at)
        return ParsedFeed(format: .rss20, metadata: metadata, entries: entries)
    }

    static func stored(
        _ entry: Entry, firstSeen: Int64, firstDate: Int64? = nil, firstPosition: Int = 0
    ) -> StoredEntry {
        StoredEntry(
            key: EntryKey.of(entry), entry: entry, firstSeen: at(firstSeen), lastSeen: now,
            firstDate: firstDate.map(at), position: firstPosition, firstPosition: firstPosition)
    }

    @Test func withoutHistoryPublishedThenUpdatedThenFeedDateThenRunTime() {
        var feed = Self.feed(
            [
                Self.entry("both", published: 100, updated: 200), Self.entry("updated", updated: 300),
                Self.entry("none"),
            ], updated: 400)
        #expect(Self.dating().dates(ofFresh: &feed) == [Self.at(100), Self.at(300), Self.at(400)])
        var undated = Self.feed([Self.entry("none")])
        #expect(Self.dating().dates(ofFresh: &undated) == [Self.now])
    }

    /// Venus and Planet 2.0 date by `updated` first; Planet 2.0 dates an undated entry
    /// when it is first seen (never by its feed's date) and hides a dateless feed's first
    /// listing beyond `new_feed_items`, on its first fetch and on every later one.
    @Test func planetProgramsDateByUpdatedFirstAndPlanet2HidesADatelessFeedsBacklog() {
        let entries = [
            Self.entry("both", published: 100, updated: 200), Self.entry("published", published: 300),
            Self.entry("none"),
        ]
        var venus = Self.feed(entries, updated: 400)
        #expect(Self.dating(style: .venus).dates(ofFresh: &venus) == [Self.at(200), Self.at(300), Self.at(400)])
        var planet2 = Self.feed(entries, updated: 400)
        #expect(
            Self.dating(newFeedItems: 2, style: .planet2).dates(ofFresh: &planet2)
                == [Self.at(200), Self.at(300), Self.now])
        var dateless = Self.feed(entries)
        #expect(
            Self.dating(newFeedItems: 2, style: .planet2).dates(ofFresh: &dateless)
                == [Self.at(200), Self.at(300), nil])
        var ours = Self.feed(entries)
        #expect(Self.dating(newFeedItems: 2).dates(ofFresh: &ours) == [Self.at(100), Self.at(300), Self.now])

        // With a state: the third entry of the feed's first listing stays hidden on a later
        // run; an entry first seen later is shown.
        let planet = Self.dating(newFeedItems: 2, style: .planet2)
        let firstFetch = Self.now.secondsSince1970 - 3_600
        var remembered = [Self.entry("none"), Self.entry("new")]
        let sightings = [
            EntryKey.of(remembered[0]): EntrySighting(
                firstSeen: Self.at(firstFetch), lastSeen: Self.at(firstFetch), firstDate: nil, firstPosition: 2)
        ]
        let dates = RememberedEntries.date(
            &remembered, keys: EntryKey.keys(of: remembered), keysAreUnique: true, sightings: sightings,
            unlisted: [], cutoff: nil, dating: planet, restamping: false, feedFirstSeen: Self.at(firstFetch),
            feedDate: nil)
        #expect(dates == [nil, Self.now])
    }

    @Test func withoutHistoryFutureDatesAreKeptClampedOrDropped() {
        let future = Self.now.secondsSince1970 + 86_400
        let entries = [
            Self.entry("future", published: future), Self.entry("updated later", published: 100, updated: future),
        ]
        var keep = Self.feed(entries)
        #expect(Self.dating(.keep).dates(ofFresh: &keep) == [Self.at(future), Self.at(100)])
        #expect(keep.entries[1].updated == Self.at(future), "keep changed an entry's own date")
        var drop = Self.feed(entries)
        #expect(Self.dating(.drop).dates(ofFresh: &drop) == [nil, Self.at(100)])
        var clamp = Self.feed(entries)
        #expect(Self.dating(.clamp).dates(ofFresh: &clamp) == [Self.now, Self.at(100)])
        // Every output shows the clamped dates, not only the timeline's order.
        #expect(clamp.entries[0].published == Self.now)
        #expect(clamp.entries[1].published == Self.at(100) && clamp.entries[1].updated == Self.now)
    }

    @Test func rememberedUndatedEntryTakesItsFirstSeenTime() {
        let (entry, date) = Self.dating().dated(
            Self.stored(Self.entry("u"), firstSeen: 500), restamping: false, feedFirstSeen: Self.at(1))
        #expect(date == Self.at(500) && entry.published == Self.at(500))
        let (own, ownDate) = Self.dating().dated(
            Self.stored(Self.entry("d", updated: 700), firstSeen: 500), restamping: false, feedFirstSeen: Self.at(1))
        #expect(ownDate == Self.at(700) && own.published == nil, "an entry's own date was replaced")
    }

    /// Venus dates an entry its feed gives no date by the feed's date: so do
    /// remembered entries, never later than first seen (their place stays).
    @Test func rememberedUndatedEntryTakesItsFeedsDateWhenEarlier() {
        let dating = Self.dating(newFeedItems: 1)
        let (entry, date) = dating.dated(
            Self.stored(Self.entry("u"), firstSeen: 500), restamping: false, feedFirstSeen: Self.at(1),
            feedDate: Self.at(300))
        #expect(date == Self.at(300) && entry.published == Self.at(300))
        let (_, later) = dating.dated(
            Self.stored(Self.entry("u"), firstSeen: 500), restamping: false, feedFirstSeen: Self.at(1),
            feedDate: Self.at(900))
        #expect(later == Self.at(500), "a feed date after the first sighting moved the entry up")
        // A new feed's backlog: the earlier of its backlog date and the feed's date.
        let backlog = Self.stored(Self.entry("b"), firstSeen: 10_000_000, firstPosition: 3)
        let (_, old) = dating.dated(
            backlog, restamping: false, feedFirstSeen: Self.at(10_000_000), feedDate: Self.at(7))
        #expect(old == Self.at(7))
        let (_, recent) = dating.dated(
            backlog, restamping: false, feedFirstSeen: Self.at(10_000_000), feedDate: Self.at(9_999_999))
        #expect(recent == Self.at(10_000_000 - 90 * 86_400 - 3))
    }

    /// Venus's `ignore_entry` and `ignore_date` forget a feed date in the future: an
    /// undated entry then takes the run's time, and is not dropped.
    @Test func withoutHistoryAFutureFeedDateIsNotAnUndatedEntrysDate() {
        let future = Self.now.secondsSince1970 + 86_400
        var drop = Self.feed([Self.entry("none")], updated: future)
        #expect(Self.dating(.drop).dates(ofFresh: &drop) == [Self.now])
        var keep = Self.feed([Self.entry("none")], updated: future)
        #expect(Self.dating(.keep).dates(ofFresh: &keep) == [Self.at(future)])
    }

    @Test func rememberedFutureDateBecomesItsFirstSeenTimeWhateverThePolicy() {
        let future = Self.now.secondsSince1970 + 86_400
        for policy in [TimelineRules.FuturePolicy.keep, .clamp, .drop] {
            let (entry, date) = Self.dating(policy).dated(
                Self.stored(Self.entry("f", published: future, updated: future), firstSeen: 600), restamping: false,
                feedFirstSeen: Self.at(1))
            #expect(date == Self.at(600), "\(policy)")
            #expect(entry.published == Self.at(600) && entry.updated == nil, "\(policy)")
        }
    }

    @Test func restampingFeedsEntriesKeepTheDateFirstSeen() {
        let (entry, date) = Self.dating().dated(
            Self.stored(Self.entry("r", published: 900, updated: 950), firstSeen: 500, firstDate: 800),
            restamping: true, feedFirstSeen: Self.at(1))
        #expect(date == Self.at(800) && entry.published == Self.at(800) && entry.updated == nil)
        let (undated, undatedDate) = Self.dating().dated(
            Self.stored(Self.entry("r", published: 900), firstSeen: 500), restamping: true, feedFirstSeen: Self.at(1))
        #expect(undatedDate == Self.at(500) && undated.published == Self.at(500))
    }

    @Test func restampDetectionFromSightings() {
        let dating = Self.dating()
        func sightings(_ firstDates: [String: Int64?]) -> [String: EntrySighting] {
            firstDates.mapValues {
                EntrySighting(firstSeen: Self.at(1), lastSeen: Self.at(1), firstDate: $0.map(Self.at), firstPosition: 0)
            }
        }
        let entries = (1...4).map { Self.entry("e\($0)", published: 1000 + Int64($0)) }
        let keys = EntryKey.keys(of: entries)
        // Dates moved for three of the four seen before: restamping.
        let moved = sightings(["id:e1": 1, "id:e2": 2, "id:e3": 3, "id:e4": 1004])
        #expect(dating.isRestamping(entries, keys: keys, sightings: moved))
        // Only one of four moved: an edit, not restamping.
        let edited = sightings(["id:e1": 1, "id:e2": 1002, "id:e3": 1003, "id:e4": 1004])
        #expect(!dating.isRestamping(entries, keys: keys, sightings: edited))
        // Every date within 120 s of the fetch, with a history: restamping; without one, not.
        let stamped = (1...3).map { Self.entry("n\($0)", published: Self.now.secondsSince1970 - 60) }
        let other = sightings(["id:old": 5])
        #expect(dating.isRestamping(stamped, keys: EntryKey.keys(of: stamped), sightings: other))
        #expect(!dating.isRestamping(stamped, keys: EntryKey.keys(of: stamped), sightings: [:]))
        // One dated entry near now is no evidence.
        #expect(!dating.isRestamping(Array(stamped.prefix(1)), keys: ["id:n1"], sightings: other))
    }

    @Test func newFeedsUndatedBacklogIsDatedAsHistory() {
        let dating = Self.dating(newFeedItems: 3)
        let firstSeen = Self.now.secondsSince1970
        let news = Self.stored(Self.entry("b2"), firstSeen: firstSeen, firstPosition: 2)
        let backlog = Self.stored(Self.entry("b5"), firstSeen: firstSeen, firstPosition: 5)
        #expect(!dating.isBacklog(news, feedFirstSeen: Self.now))
        #expect(dating.isBacklog(backlog, feedFirstSeen: Self.now))
        #expect(dating.dated(news, restamping: false, feedFirstSeen: Self.now).1 == Self.now)
        #expect(
            dating.dated(backlog, restamping: false, feedFirstSeen: Self.now).1
                == Self.at(firstSeen - 90 * 86_400 - 5))
        // An entry that came after the feed's first fetch is news, wherever it is listed.
        #expect(!dating.isBacklog(backlog, feedFirstSeen: Self.at(firstSeen - 86_400)))
        // A dated entry of the backlog keeps its own date.
        let dated = Self.stored(Self.entry("b6", published: 1234), firstSeen: firstSeen, firstPosition: 6)
        #expect(dating.dated(dated, restamping: false, feedFirstSeen: Self.now).1 == Self.at(1234))
    }

    @Test func aKeyListedTwiceIsOneRememberedEntryAtItsLastPlace() {
        let entries = [Self.entry("a", published: 1), Self.entry("b", published: 2), Self.entry("a", published: 3)]
        let keys = EntryKey.keys(of: entries)
        let known = [
            "id:a": EntrySighting(firstSeen: Self.at(7), lastSeen: Self.at(7), firstDate: nil, firstPosition: 4)
        ]
        func remembered(restamping: Bool, cutoff: Int64? = nil, unlisted: [StoredEntry] = [])
            -> (ids: [String?], dates: [Timestamp?], entries: [Entry])
        {
            var listed = entries
            let dates = RememberedEntries.date(
                &listed, keys: keys, keysAreUnique: Set(keys).count == keys.count, sightings: known,
                unlisted: unlisted, cutoff: cutoff.map(Self.at), dating: Self.dating(), restamping: restamping,
                feedFirstSeen: Self.at(7))
            return (listed.map(\.id), dates, listed)
        }
        // One entry per key, at its last place, with its last content.
        let plain = remembered(restamping: false)
        #expect(plain.ids == ["b", "a"])
        #expect(plain.dates == [Self.at(2), Self.at(3)])
        // Restamped, each takes the date first seen: the known key its stored facts (first
        // seen at 7, no first date), the new one its own date, first seen now.
        let restamped = remembered(restamping: true)
        #expect(restamped.dates == [Self.at(2), Self.at(7)])
        #expect(restamped.entries[1].published == Self.at(7) && restamped.entries[1].updated == nil)
        // Those that cannot get past the cutoff are left out (`latestDate`: b's is 2, a's 7).
        let cut = remembered(restamping: false, cutoff: 5)
        #expect(cut.ids == ["a"] && cut.dates == [Self.at(3)])
        // The entries it no longer lists come after, in their order; met at the same run
        // time (`--now`), they take their places among the listed ones.
        func gone(_ id: String, lastSeen: Timestamp, position: Int) -> StoredEntry {
            StoredEntry(
                key: "id:" + id, entry: Self.entry(id, published: 4), firstSeen: Self.at(1), lastSeen: lastSeen,
                firstDate: Self.at(4), position: position, firstPosition: position)
        }
        let before = gone("c", lastSeen: Self.at(6), position: 0)
        #expect(remembered(restamping: false, unlisted: [before]).ids == ["b", "a", "c"])
        let sameTime = gone("c", lastSeen: Self.now, position: 1)  // after b (key order), before a
        #expect(remembered(restamping: false, unlisted: [sameTime]).ids == ["b", "c", "a"])
    }
}
