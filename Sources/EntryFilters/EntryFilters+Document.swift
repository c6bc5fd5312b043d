import FeedModel

extension EntryFilters {
    /// A document filter over an entry's normalized document: what it
    /// writes back is read as the entry; nothing drops the entry; a failure,
    /// or a result that is not an Atom entry, leaves the entry as it was.
    static func run(_ filter: DocumentFilter, on entry: Entry, feed: FilterFeed) -> StepResult {
        let written = NormalizedEntry.document(entry, in: feed)
        switch filter.apply(to: written.text) {
        case .unchanged:
            return .kept(entry)
        case .empty:
            return .dropped
        case .failed(let reason):
            return .failed("\(filter.name) (\(reason))")
        case .stopped(let now):
            return .stopped(filter.name, seconds: filter.timeLimit, now: now)
        case .text(let text):
            guard
                var filtered = NormalizedEntry.read(
                    text, base: entry.link ?? feed.metadata.link, written: written, original: entry)
            else {
                return .failed("\(filter.name) (its output is not an Atom entry)")
            }
            // What the normalized form does not carry stays as the feed gave it.
            filtered.comments = entry.comments
            filtered.image = entry.image
            filtered.explicit = entry.explicit
            return .kept(filtered)
        }
    }
}
