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
    public var metadata: FeedMetadata?
    /// The feed rewrites its entries' dates on every fetch: they are pinned
    /// to the dates first seen.
    public var restamping: Bool
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
}

/// What one run learned about one feed, stored in one transaction: new
/// entries and new validators together, never one without the other.
public struct FeedUpdate: Sendable {
    public enum Outcome: Sendable {
        /// 2xx: the entries the feed lists now, and the validators that came with them.
        case fetched(entries: [Entry], etag: String?, lastModified: String?, metadata: FeedMetadata)
        case notModified
        /// The feed was not fetched (a Retry-After or cache lifetime not over, or gone).
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

    public init(url: String, outcome: Outcome, status: Int?, movedTo: String?, notBefore: Timestamp?, now: Timestamp) {
        self.url = url
        self.outcome = outcome
        self.status = status
        self.movedTo = movedTo
        self.notBefore = notBefore
        self.now = now
    }
}

/// Where runs keep what they learned. The SQLite store is the default; a
/// server-backed store can implement the same protocol.
public protocol StateStore: AnyObject {
    /// Every feed the state knows, by subscription URL.
    func feeds() throws(StateError) -> [String: FeedRecord]
    /// One feed's record.
    func feed(_ url: String) throws(StateError) -> FeedRecord?
    /// Stores one feed's outcome (entries, validators, health) atomically.
    func record(_ update: FeedUpdate) throws(StateError)
    /// Stores several outcomes in one transaction (for the many small ones,
    /// 304s and skips, whose loss in a crash costs nothing but a timestamp).
    func record(all updates: [FeedUpdate]) throws(StateError)
    /// The entries stored for a feed, in feed order, then the ones it no
    /// longer lists; with `notOlderThan`, only those that may date on or
    /// after it (the others are not even decoded).
    func entries(of url: String, notOlderThan: Timestamp?) throws(StateError) -> [StoredEntry]
    /// How many entries are stored for a feed, and the newest one's date.
    func summary(of url: String) throws(StateError) -> (count: Int, newest: Timestamp?)
    /// Drops entries a feed no longer lists once older than `keepDays`, or
    /// beyond the newest `keepPerFeed` stored for that feed: for `feeds`
    /// (those whose listing changed), and for all once a day (nil: all now).
    func prune(feeds: [String]?, keepDays: Int, keepPerFeed: Int, now: Timestamp) throws(StateError)
}
