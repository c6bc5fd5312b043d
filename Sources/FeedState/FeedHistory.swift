import FeedModel

/// What a store held of one feed's entries when the run asked for it
/// (`StateStore.history(of:)`): read once, before the run records the
/// feed's outcome, and kept by the run as long as it needs it: the
/// sightings the dating policy decides from, then, from the same copy, the
/// entries the feed no longer lists. The store keeps nothing for it, so no
/// call order is left to get wrong.
///
/// An entry whose stored form does not decode is left out and counted
/// (`Read.unreadable`): a damaged entry costs that entry, not the feed's others.
public struct FeedHistory: Sendable {
    /// A store's document of a feed's entries (SQLite's, PostgreSQL's: `FeedEntries`), read
    /// only as far as asked: the four reads a history makes of it.
    package protocol Document: Sendable {
        var sightings: [String: EntrySighting] { get }
        func entries(notOlderThan cutoff: Timestamp?, except: Set<String>, unreadable: inout Int) -> [StoredEntry]
        func lazyEntries(notOlderThan cutoff: Timestamp?, unreadable: inout Int) -> [LazyStoredEntry]
        var summary: (count: Int, newest: Timestamp?) { get }
    }

    private enum Storage: Sendable {
        /// A store's document (SQLite, PostgreSQL), decoded only as far as asked.
        case document(any Document)
        /// Entries a store keeps decoded (the memory store).
        case entries([StoredEntry])
    }

    private let storage: Storage

    /// What a read gives: the entries, and how many could not be decoded.
    public struct Read<Element> {
        public var entries: [Element]
        public var unreadable: Int
    }

    /// A feed the store holds no entries of.
    public static let empty = FeedHistory(entries: [])

    package init(document: some Document) { storage = .document(document) }

    /// Entries as a store keeps them, one per key.
    public init(entries: [StoredEntry]) { storage = .entries(entries) }

    /// What the store knew of each entry, by key (`EntryKey`).
    public var sightings: [String: EntrySighting] {
        switch storage {
        case .document(let document): document.sightings
        case .entries(let entries): Dictionary(entries.map { ($0.key, $0.sighting) }) { _, last in last }
        }
    }

    /// The stored entries in `StoredEntry.inStoreOrder`; with `notOlderThan`,
    /// only those whose `latestDate` is on or after it; never those whose key
    /// is in `except` (the entries a fetch just listed, which the run has
    /// already). Those left out are not even decoded.
    public func entries(notOlderThan cutoff: Timestamp?, except: Set<String>) -> Read<StoredEntry> {
        switch storage {
        case .document(let document):
            var unreadable = 0
            let entries = document.entries(notOlderThan: cutoff, except: except, unreadable: &unreadable)
            return Read(entries: entries, unreadable: unreadable)
        case .entries(let entries):
            let chosen = entries.filter { entry in
                !except.contains(entry.key) && cutoff.map { entry.latestDate >= $0 } ?? true
            }
            return Read(entries: chosen.sorted(by: StoredEntry.inStoreOrder), unreadable: 0)
        }
    }

    /// `entries(notOlderThan:except: [])`, each decoded only when asked (`LazyStoredEntry.entry`).
    public func lazyEntries(notOlderThan cutoff: Timestamp?) -> Read<LazyStoredEntry> {
        switch storage {
        case .document(let document):
            var unreadable = 0
            let entries = document.lazyEntries(notOlderThan: cutoff, unreadable: &unreadable)
            return Read(entries: entries, unreadable: unreadable)
        case .entries:
            let read = entries(notOlderThan: cutoff, except: [])
            return Read(entries: read.entries.map(LazyStoredEntry.init), unreadable: 0)
        }
    }

    /// How many entries are stored, and the newest one's date (its own, else first seen).
    public var summary: (count: Int, newest: Timestamp?) {
        switch storage {
        case .document(let document): document.summary
        case .entries(let entries): (entries.count, entries.map { $0.entry.ownDate ?? $0.firstSeen }.max())
        }
    }
}
