import FeedModel

/// What bounds the dates of a feed's stored entries, kept beside its
/// record: a run can then tell, without reading a feed's entries, that
/// none of them can get into a full timeline (`EntryDating.latestDate(of:)`
/// turns these facts into that bound, by the dating policy; a store keeps
/// facts only). On a run served from the state, most of a long list's
/// feeds are older than its timeline's last entry.
///
/// The facts are taken at a `pivot` (the time the feed's entries were
/// written): the entries' own and first-seen own dates split at it, so
/// that a date which was in the future then and has since come due is
/// seen to have (it is no longer bounded by its first-seen time).
public struct StoredDates: Sendable, Equatable {
    /// How many entries are stored.
    public var count: Int
    /// The latest own date (as last listed, or as first seen) at or before the pivot.
    public var newestPast: Int64?
    /// The earliest such date after the pivot.
    public var earliestFuture: Int64?
    /// The latest of every entry's `StoredEntry.latestDate`.
    public var latest: Int64?
    /// The latest time an entry was first seen.
    public var lastFirstSeen: Int64?
    /// The latest time an entry was first seen, of those that lack an own
    /// date or a first-seen own date, or have one after the pivot: the
    /// entries a run may date by when they were first seen.
    public var lastFirstSeenOfUndated: Int64?

    public init(
        count: Int, newestPast: Int64?, earliestFuture: Int64?, latest: Int64?, lastFirstSeen: Int64?,
        lastFirstSeenOfUndated: Int64?
    ) {
        self.count = count
        self.newestPast = newestPast
        self.earliestFuture = earliestFuture
        self.latest = latest
        self.lastFirstSeen = lastFirstSeen
        self.lastFirstSeenOfUndated = lastFirstSeenOfUndated
    }

    /// No entries.
    public init() {
        self.init(
            count: 0, newestPast: nil, earliestFuture: nil, latest: nil, lastFirstSeen: nil,
            lastFirstSeenOfUndated: nil)
    }

    /// The facts of entries given by their sightings and own dates (as last listed).
    public init(_ entries: some Sequence<(sighting: EntrySighting, own: Timestamp?)>, pivot: Timestamp) {
        self.init()
        for (sighting, own) in entries {
            add(
                firstSeen: sighting.firstSeen.secondsSince1970, firstDate: sighting.firstDate?.secondsSince1970,
                entryDate: own?.secondsSince1970, latestDate: sighting.latestDate(own: own).secondsSince1970,
                pivot: pivot.secondsSince1970)
        }
    }

    package mutating func add(firstSeen: Int64, firstDate: Int64?, entryDate: Int64?, latestDate: Int64, pivot: Int64) {
        count += 1
        var undated = entryDate == nil || firstDate == nil
        for case let date? in [entryDate, firstDate] {
            if date <= pivot {
                newestPast = max(newestPast ?? date, date)
            } else {
                earliestFuture = min(earliestFuture ?? date, date)
                undated = true
            }
        }
        latest = max(latest ?? latestDate, latestDate)
        lastFirstSeen = max(lastFirstSeen ?? firstSeen, firstSeen)
        if undated { lastFirstSeenOfUndated = max(lastFirstSeenOfUndated ?? firstSeen, firstSeen) }
    }

    /// The latest own (or first-seen own) date that is not after `now`,
    /// or a date no earlier than it: `newestPast` while no date after the
    /// pivot has come due by `now`, else `latest`.
    public func newestOwnDate(notAfter now: Timestamp) -> Timestamp? {
        if let earliestFuture, now.secondsSince1970 >= earliestFuture { return latest.map(stamp) }
        return newestPast.map(stamp)
    }

    /// As the state file keeps them (a version byte, then the six facts).
    public var encoded: [UInt8] {
        var out = EntryCodec.Writer()
        out.byte(1)
        out.varint(UInt64(count))
        out.integer(newestPast)
        out.integer(earliestFuture)
        out.integer(latest)
        out.integer(lastFirstSeen)
        out.integer(lastFirstSeenOfUndated)
        return out.bytes
    }

    /// nil when the bytes are not such facts (damaged, or of a later version).
    public init?(encoded bytes: [UInt8]) {
        var r = EntryCodec.Reader(bytes: bytes)
        guard r.byte() == 1 else { return nil }
        // (Not `r.count()`, which bounds a count by the bytes that follow it.)
        let count = r.varint()
        guard count <= UInt64(Int32.max) else { return nil }
        self.init(
            count: Int(count), newestPast: r.integer(), earliestFuture: r.integer(), latest: r.integer(),
            lastFirstSeen: r.integer(), lastFirstSeenOfUndated: r.integer())
        guard !r.failed, r.index == bytes.count else { return nil }
    }
}

/// A time the state keeps as seconds since 1970, as a `Timestamp`.
package func stamp(_ seconds: Int64) -> Timestamp { Timestamp(secondsSince1970: seconds) }
