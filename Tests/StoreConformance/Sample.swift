import FeedModel
import FeedState
import Testing

/// The feeds, entries and outcomes the scenarios store: fixed times, no network.
enum Sample {
    static let start: Int64 = 1_700_000_000
    static let day: Int64 = 86_400

    /// `days` days and `seconds` seconds after the start.
    static func time(_ days: Int64, _ seconds: Int64 = 0) -> Timestamp {
        Timestamp(secondsSince1970: start + days * day + seconds)
    }

    /// An entry whose id, link and title come from `name`; `date` its own date (published).
    static func entry(_ name: String, date: Timestamp? = nil, title: String? = nil) -> Entry {
        var entry = Entry()
        entry.id = "urn:sample:\(name)"
        entry.link = "http://example.com/\(name)"
        entry.title = Text(title ?? name)
        entry.published = date
        return entry
    }

    /// A listing of entries on day `day`: every third undated, the third dated a day after it
    /// (in the future then), the others a day before it.
    static func listing(_ names: String..., day: Int64) -> [Entry] {
        names.enumerated().map { index, name in
            index % 3 == 1 ? entry(name) : entry(name, date: time(day + (index == 2 ? 1 : -1)))
        }
    }

    static func metadata(_ title: String) -> FeedMetadata {
        var metadata = FeedMetadata()
        metadata.title = Text(title)
        metadata.link = "http://example.com/"
        metadata.subtitle = Text("about \(title)")
        return metadata
    }

    /// The key a store keeps an entry under.
    static func key(_ entry: Entry) -> String { PreparedEntries([entry]).keys[0] }

    static func fetched(
        _ url: String, _ entries: [Entry], at now: Timestamp, etag: String? = "\"e1\"", lastModified: String? = nil,
        title: String = "Feed", restamping: Bool = false, status: Int = 200, movedTo: String? = nil,
        notBefore: Timestamp? = nil
    ) -> FeedUpdate {
        FeedUpdate(
            url: url,
            outcome: .fetched(
                entries: PreparedEntries(entries), etag: etag, lastModified: lastModified, metadata: metadata(title),
                restamping: restamping),
            status: status, movedTo: movedTo, notBefore: notBefore, now: now,
            reported: ReportedOutcome(status: "ok", entriesInFeed: entries.count, reason: nil))
    }

    static func notModified(_ url: String, at now: Timestamp, movedTo: String? = nil, notBefore: Timestamp? = nil)
        -> FeedUpdate
    {
        FeedUpdate(
            url: url, outcome: .notModified(etag: nil, lastModified: nil), status: 304, movedTo: movedTo,
            notBefore: notBefore, now: now,
            reported: ReportedOutcome(status: "not-modified", entriesInFeed: 0, reason: nil))
    }

    static func failed(
        _ url: String, _ message: String, at now: Timestamp, status: Int? = 500, gone: Bool = false,
        notBefore: Timestamp? = nil
    ) -> FeedUpdate {
        FeedUpdate(
            url: url, outcome: .failed(message: message, gone: gone), status: status, movedTo: nil,
            notBefore: notBefore, now: now,
            reported: ReportedOutcome(status: gone ? "gone" : "failed", entriesInFeed: 0, reason: message))
    }

    static func skipped(_ url: String, at now: Timestamp, reported: ReportedOutcome?) -> FeedUpdate {
        FeedUpdate(url: url, outcome: .skipped, status: nil, movedTo: nil, notBefore: nil, now: now, reported: reported)
    }

    static let deferred = ReportedOutcome(status: "deferred", entriesInFeed: 0, reason: "Retry-After")
}

extension StateStore {
    /// Records one outcome and commits it, expecting it stored.
    func store(_ update: FeedUpdate, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try record(update)
        let unstored = try commit()
        #expect(unstored.isEmpty, "\(update.url): \(unstored)", sourceLocation: sourceLocation)
    }

    /// The entries stored for a feed, in the store's order, with what could not be read.
    func stored(_ url: String) throws -> FeedHistory.Read<StoredEntry> {
        try history(of: url).entries(notOlderThan: nil, except: [])
    }

    /// The ids of the entries stored for a feed, in the store's order.
    func ids(_ url: String) throws -> [String] {
        try stored(url).entries.map { $0.entry.id ?? "" }
    }
}
