import Basics
import FeedModel

/// What the state remembers of one feed between runs.
public struct FeedRecord: Sendable {
    public var url: String
    /// Where a permanent redirect (301/308) said the feed now lives.
    public var movedTo: String?
    public var etag: String?
    public var lastModified: String?
    public var firstSeen: Timestamp
    public var lastFetch: Timestamp?
    public var lastSuccess: Timestamp?
    public var lastStatus: Int?
    public var consecutiveFailures: Int
    public var lastError: String?
    /// Not to be fetched before this (Retry-After, Cache-Control, Expires).
    public var notBefore: Timestamp?
    /// 410 Gone: not fetched again (unless forced).
    public var gone: Bool
    public var title: String?
    public var link: String?
    /// The feed's metadata as its last successful fetch gave it: a feed
    /// served from the state (304, failure, deferral) contributes exactly
    /// that again. nil for a feed never fetched (or stored before schema 2,
    /// then only `title` and `link` are known).
    public var metadata: FeedMetadata? {
        get { metadataBox?.value }
        set { metadataBox = newValue.map(Boxed.init) }
    }
    /// Out of line: a run holds a record per subscription (in a dictionary and in each plan).
    private var metadataBox: Boxed<FeedMetadata>?
    /// The feed rewrites its entries' dates on every fetch: they are pinned
    /// to the dates first seen. Decided by the run's dating policy, stored here.
    public var restamping: Bool
    /// When the feed began to fail, while it fails (the first failure
    /// after its last success); nil while it works.
    public var failingSince: Timestamp?
    /// In a shared state (`SharedStateStore`): when it is next due (nil: not
    /// scheduled yet, or never again), which process fetched it last, and
    /// which holds its host's lease now.
    public var nextCheck: Timestamp?
    public var fetchedBy: String?
    public var leaseHolder: String?
    /// How the run that stored the feed's last outcome reported it (nil:
    /// stored before the state kept it).
    public var lastReport: ReportedOutcome?
}

/// How a run reported a feed whose outcome it stored: what `feedmerge
/// render`, which fetches nothing, reports of the feed, as that run saw it.
public struct ReportedOutcome: Sendable, Equatable {
    /// `ok`, `not-modified`, `deferred`, `failed` or `gone`.
    public var status: String
    /// The entries the feed listed (0 when it was not read).
    public var entriesInFeed: Int
    /// Why it failed, or (`ok`) why it was read only in part (cut short, not well-formed).
    public var reason: String?

    public init(status: String, entriesInFeed: Int, reason: String?) {
        self.status = status
        self.entriesInFeed = entriesInFeed
        self.reason = reason
    }

    /// As stored, in one text column: the status, the count, then the reason, one space apart.
    public var encoded: String {
        "\(status) \(entriesInFeed)" + (reason.map { " " + $0 } ?? "")
    }

    /// - Returns: nil when `encoded` is not such a text.
    public init?(encoded: String) {
        let parts = encoded.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, !parts[0].isEmpty, let count = Int(parts[1]) else { return nil }
        status = String(parts[0])
        entriesInFeed = count
        reason = parts.count > 2 ? String(parts[2]) : nil
    }
}

extension FeedRecord {
    /// A feed's record when it is first seen.
    public init(url: String, firstSeen: Timestamp) {
        self.url = url
        self.firstSeen = firstSeen
        consecutiveFailures = 0
        gone = false
        restamping = false
    }
}

/// What the store knew of one entry before a fetch: the facts the run's
/// dating policy decides from (first-seen dates, restamping).
public struct EntrySighting: Sendable, Equatable {
    public var firstSeen: Timestamp
    public var lastSeen: Timestamp
    /// The entry's own date the first time it was seen.
    public var firstDate: Timestamp?
    /// Its place in the feed the first time it was seen.
    public var firstPosition: Int

    public init(firstSeen: Timestamp, lastSeen: Timestamp, firstDate: Timestamp?, firstPosition: Int) {
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.firstDate = firstDate
        self.firstPosition = firstPosition
    }

    /// `StoredEntry.latestDate` of the entry whose own date is `own`.
    public func latestDate(own: Timestamp?) -> Timestamp {
        max(own ?? firstSeen, firstDate ?? firstSeen)
    }
}

/// An entry as stored: the normalized entry and when it was seen.
public struct StoredEntry: Sendable {
    public var key: String
    public var entry: Entry
    public var firstSeen: Timestamp
    public var lastSeen: Timestamp
    /// The entry's own date the first time it was seen.
    public var firstDate: Timestamp?
    /// Its place in the feed when last seen, and when first seen.
    public var position: Int
    public var firstPosition: Int

    public init(
        key: String, entry: Entry, firstSeen: Timestamp, lastSeen: Timestamp, firstDate: Timestamp?, position: Int,
        firstPosition: Int
    ) {
        self.key = key
        self.entry = entry
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.firstDate = firstDate
        self.position = position
        self.firstPosition = firstPosition
    }

    /// The order a store gives a feed's entries in (`RetentionRule.Place.inStoreOrder`).
    public static func inStoreOrder(_ a: StoredEntry, _ b: StoredEntry) -> Bool {
        RetentionRule.Place.inStoreOrder(a.place, b.place)
    }

    /// What places the entry among its feed's, for their order and retention.
    public var place: RetentionRule.Place {
        RetentionRule.Place(lastSeen: lastSeen.secondsSince1970, position: position, key: key)
    }

    /// What the store knows of the entry besides the entry itself.
    public var sighting: EntrySighting {
        EntrySighting(firstSeen: firstSeen, lastSeen: lastSeen, firstDate: firstDate, firstPosition: firstPosition)
    }

    /// The latest date a timeline can give the entry (its own date, else
    /// first seen; or, restamped, the date first seen): what `notOlderThan`
    /// compares. The dating policy only ever lowers a date from there.
    public var latestDate: Timestamp { sighting.latestDate(own: entry.ownDate) }
}

/// A stored entry not decoded yet: what names and dates it, and its form.
/// A run served from the state decodes only the entries its timeline
/// keeps (with a full timeline, most of a list's stored entries come in
/// and are pushed out by newer ones).
public struct LazyStoredEntry: Sendable {
    public var key: String
    public var id: String?
    public var link: String?
    public var published: Timestamp?
    public var updated: Timestamp?
    public var sighting: EntrySighting
    private let form: Form

    private enum Form: Sendable {
        /// Codec bytes known to decode (`EntryCodec.skim`).
        case encoded([UInt8])
        case decoded(Entry)
    }

    /// An entry a store has decoded already.
    public init(_ stored: StoredEntry) {
        key = stored.key
        id = stored.entry.id
        link = stored.entry.link
        published = stored.entry.published
        updated = stored.entry.updated
        sighting = stored.sighting
        form = .decoded(stored.entry)
    }

    /// - Returns: nil when the bytes do not decode.
    package init?(key: String, codecBytes: [UInt8], sighting: EntrySighting) {
        guard let skimmed = EntryCodec.skim(codecBytes) else { return nil }
        self.key = key
        (id, link, published, updated) = skimmed
        self.sighting = sighting
        form = .encoded(codecBytes)
    }

    /// The entry (an entry whose bytes no longer decode, which `skim` has
    /// ruled out: its id, link and dates alone).
    public var entry: Entry {
        switch form {
        case .decoded(let entry):
            return entry
        case .encoded(let bytes):
            if let entry = EntryCodec.decode(bytes) { return entry }
            var entry = Entry()
            entry.id = id
            entry.link = link
            entry.published = published
            entry.updated = updated
            return entry
        }
    }
}

/// What one run learned about one feed, stored in one transaction: new
/// entries and new validators together, never one without the other.
public struct FeedUpdate: Sendable {
    public enum Outcome: Sendable {
        /// 2xx: the entries the feed lists now, as their keys, stored forms and dates
        /// (`PreparedEntries`), the validators that came with them, and whether the dating
        /// policy found the feed restamping. Out of line (`indirect`): a run keeps every
        /// not-modified feed's update until its end, and the other cases are small.
        indirect case fetched(
            entries: PreparedEntries, etag: String?, lastModified: String?, metadata: FeedMetadata,
            restamping: Bool)
        /// 304: validators it carried replace the stored ones (nil keeps what was stored).
        case notModified(etag: String?, lastModified: String?)
        /// The feed was not asked (deferred: a Retry-After or cache lifetime not over, or not due;
        /// or gone): nothing is stored but how the run reported it (`reported`), on a feed stored before.
        case skipped
        case failed(message: String, gone: Bool)
    }

    public var url: String
    public var outcome: Outcome
    public var status: Int?
    /// A permanent redirect's target; nil keeps what was stored.
    public var movedTo: String?
    public var notBefore: Timestamp?
    public var now: Timestamp
    /// How the run reported the feed; nil keeps what was stored.
    public var reported: ReportedOutcome?

    public init(
        url: String, outcome: Outcome, status: Int?, movedTo: String?, notBefore: Timestamp?, now: Timestamp,
        reported: ReportedOutcome? = nil
    ) {
        self.url = url
        self.outcome = outcome
        self.status = status
        self.movedTo = movedTo
        self.notBefore = notBefore
        self.now = now
        self.reported = reported
    }
}

/// What a store gives to read: the side of `StateStore` a session hands
/// out at any time (`StateSession.read`), a read-only one included.
public protocol StateReading: AnyObject {
    /// Whether the store keeps entries (a `--no-state` run's store keeps
    /// none: the run then computes no keys and asks for no sightings).
    var keepsEntries: Bool { get }
    /// Every feed the state knows, by subscription URL.
    func feeds() throws(StateError) -> [String: FeedRecord]
    /// One feed's record.
    func feed(_ url: String) throws(StateError) -> FeedRecord?
    /// The records of these feeds, with what bounds each one's stored
    /// entries' dates (nil: not known, the feed's entries are read whole):
    /// a run over part of a long list reads only its own feeds.
    func feeds(_ urls: [String]) throws(StateError) -> [String: (record: FeedRecord, dates: StoredDates?)]
    /// What the store holds of a feed's entries now (`FeedHistory`): read
    /// before its fetch is recorded, for the dating policy and the entries
    /// the feed no longer lists; read after `commit`, for its summary.
    /// Throws when it cannot be read (a damaged document: the feed's next
    /// fetch replaces it).
    func history(of url: String) throws(StateError) -> FeedHistory
    /// What bounds each feed's stored entries' dates, by subscription URL,
    /// as the store holds them now (a feed it does not say is read whole).
    func storedDates() throws(StateError) -> [String: StoredDates]
    /// The merged feed's id the state keeps (`keepMergedFeedID`); nil: none yet.
    func mergedFeedID() throws(StateError) -> UInt64?
}

extension StateReading {
    /// A store that keeps no such facts: every feed's entries are read.
    public func storedDates() throws(StateError) -> [String: StoredDates] { [:] }

    /// Each feed's record read alone; no bounds of its entries' dates.
    public func feeds(_ urls: [String]) throws(StateError) -> [String: (record: FeedRecord, dates: StoredDates?)] {
        var result: [String: (record: FeedRecord, dates: StoredDates?)] = [:]
        for url in urls { if let record = try feed(url) { result[url] = (record, nil) } }
        return result
    }

    /// A store that keeps no id: none is kept.
    public func mergedFeedID() throws(StateError) -> UInt64? { nil }
}

/// Where runs keep what they learned. The SQLite store is the default; a
/// server-backed store can implement the same protocol; `MemoryStateStore`
/// serves `--no-state`. A store keeps facts and decides nothing: how entries
/// are dated (first seen, restamping, backlog) is the run's dating policy,
/// how an outcome changes a record `FeedRecord.after`, and what a prune
/// keeps `RetentionRule`. Its calls come in the order `StoreRun` types.
public protocol StateStore: StateReading {
    /// Stores one feed's outcome (entries, validators, health) atomically:
    /// all of it or none of it, now or by the next `commit` (a store may
    /// store outcomes on a thread of its own and gather them in one
    /// transaction). What the store gives back of that feed (`history`,
    /// `feed`) is only sure to include it after `commit`.
    func record(_ update: FeedUpdate) throws(StateError)
    /// Makes every outcome recorded so far durable. `record(all:)`, `prune`
    /// and `rename` do so first.
    /// - Returns: the feeds whose outcome could not be stored, with why.
    func commit() throws(StateError) -> [String: StateError]
    /// Stores several outcomes in one transaction (for the many small ones,
    /// 304s and skips, whose loss in a crash costs nothing but a timestamp).
    func record(all updates: [FeedUpdate]) throws(StateError)
    /// Forgets the feeds' validators (ETag, Last-Modified), so that their
    /// next fetch is whole, not a 304: the run's answer to a document found
    /// damaged and not replaced by a fetch (a 304 would serve it for good).
    func forgetValidators(of urls: [String]) throws(StateError)
    /// Continues a feed's record and entries under a new URL (the one a
    /// permanent redirect gave, once the subscription itself says it).
    func rename(feed url: String, to newURL: String) throws(StateError)
    /// Drops entries a feed no longer lists once older than `keepDays`, or
    /// beyond the newest `keepPerFeed` stored for that feed: for `feeds`
    /// (those whose listing changed), and for all once a day (nil: all now).
    func prune(feeds: [String]?, keepDays: Int, keepPerFeed: Int, now: Timestamp) throws(StateError)
    /// Keeps `id` as the merged feed's id unless the state keeps one
    /// already: a merge that has nothing else to be known by keeps the id
    /// its first run wrote, whatever its list becomes.
    /// - Returns: the id the state keeps (the earlier one, if any).
    func keepMergedFeedID(_ id: UInt64) throws(StateError) -> UInt64
    /// The run is done with the store: it may tidy its file now (the SQLite
    /// store copies its journal into the database), beside what the run
    /// still does, such as writing its outputs. Releasing the store waits
    /// for it.
    func finish()
}

extension StateStore {
    /// A store that stores each outcome as it is recorded (and throws there).
    public func commit() throws(StateError) -> [String: StateError] { [:] }

    /// A store with nothing to tidy.
    public func finish() {}

    /// A store that keeps no id: each run's is its own.
    public func keepMergedFeedID(_ id: UInt64) throws(StateError) -> UInt64 { id }

}

/// One feed's whole stored state as one store gives it to another
/// (`feedmerge state copy`): its record, its entries' document as stored
/// (`FeedEntries.document`, never decoded on the way), and what bounds its
/// entries' dates.
public struct FeedSnapshot: Sendable {
    public var record: FeedRecord
    /// nil: no entries stored.
    public var document: [UInt8]?
    public var dates: StoredDates?

    public init(record: FeedRecord, document: [UInt8]?, dates: StoredDates?) {
        self.record = record
        self.document = document
        self.dates = dates
    }
}

/// A store whose whole content can be read out and written into another:
/// a state moves between SQLite and PostgreSQL without losing its history,
/// and a run on the copy gives the same bytes.
public protocol CopyableStateStore: StateStore {
    /// Every feed, one at a time, in URL order (memory stays that of one feed).
    func exportFeeds(_ body: (FeedSnapshot) throws(StateError) -> Void) throws(StateError)
    /// Adds feeds the store does not hold, in one transaction per call.
    func importFeeds(_ feeds: [FeedSnapshot]) throws(StateError)
    /// When retention last went over every feed (0: never), and setting it.
    func lastFullPrune() throws(StateError) -> Int64
    func setLastFullPrune(_ time: Int64) throws(StateError)
}
