import FeedModel
import FeedState

/// Everything a store gives back through the boundary, in a form two
/// stores' can be compared by: each feed's record (the fields every store
/// keeps; a shared state's schedule and lease fields are the shared
/// scenarios'), its stored entries with their sightings, its history's
/// summary, and what bounds its entries' dates.
struct StoreFacts: Equatable {
    var records: [String: String] = [:]
    var histories: [String: [String]] = [:]
    var dates: [String: StoredDates] = [:]

    init(of store: any StateStore) throws {
        for (url, record) in try store.feeds() {
            records[url] = Self.describe(record)
            histories[url] = try Self.describe(store.history(of: url))
        }
        dates = try store.storedDates()
    }

    static func describe(_ r: FeedRecord) -> String {
        func t(_ time: Timestamp?) -> String { time.map { String($0.secondsSince1970) } ?? "-" }
        let metadata = r.metadata.map { String(describing: $0) } ?? "-"
        return """
            moved \(r.movedTo ?? "-") etag \(r.etag ?? "-") last-modified \(r.lastModified ?? "-") \
            first-seen \(t(r.firstSeen)) last-fetch \(t(r.lastFetch)) last-success \(t(r.lastSuccess)) \
            status \(r.lastStatus.map(String.init) ?? "-") failures \(r.consecutiveFailures) \
            error \(r.lastError ?? "-") not-before \(t(r.notBefore)) gone \(r.gone) title \(r.title ?? "-") \
            link \(r.link ?? "-") restamping \(r.restamping) failing-since \(t(r.failingSince)) \
            report \(r.lastReport?.encoded ?? "-") metadata \(metadata)
            """
    }

    static func describe(_ history: FeedHistory) -> [String] {
        let read = history.entries(notOlderThan: nil, except: [])
        let summary = history.summary
        let lazy = history.lazyEntries(notOlderThan: nil)
        return ["count \(summary.count) newest \(summary.newest?.secondsSince1970 ?? -1) unreadable \(read.unreadable)"]
            + read.entries.map { e in
                let entry =
                    "\(e.entry.id ?? "-") \(e.entry.title?.value ?? "-") \(e.entry.ownDate?.secondsSince1970 ?? -1)"
                return """
                    \(e.key) first-seen \(e.firstSeen.secondsSince1970) last-seen \(e.lastSeen.secondsSince1970) \
                    first-date \(e.firstDate?.secondsSince1970 ?? -1) position \(e.position) \
                    first-position \(e.firstPosition) entry \(entry)
                    """
            } + ["lazily \(lazy.entries.map(\.key)) unreadable \(lazy.unreadable)"]
    }

    /// What differs from `other`, one line per feed and kind of fact (empty: nothing).
    func differences(from other: StoreFacts) -> [String] {
        var lines: [String] = []
        for url in Set(records.keys).union(other.records.keys).sorted() {
            if records[url] != other.records[url] {
                lines.append("record of \(url): \(records[url] ?? "none") | \(other.records[url] ?? "none")")
            }
            if histories[url] != other.histories[url] {
                lines.append("history of \(url): \(histories[url] ?? []) | \(other.histories[url] ?? [])")
            }
        }
        for url in Set(dates.keys).union(other.dates.keys).sorted() where dates[url] != other.dates[url] {
            lines.append("dates of \(url): \(String(describing: dates[url])) | \(String(describing: other.dates[url]))")
        }
        return lines
    }
}
