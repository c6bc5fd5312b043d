import FeedModel

/// A fetched feed's entries made ready for a store that keeps entries:
/// their keys (`EntryKey`), their codec bytes and their own dates. Made
/// where the feed was parsed (a task-group child, beside the other feeds'
/// parsing), so that the store's one writer only merges, compresses and
/// writes, and needs none of the entries themselves (the run keeps the
/// only copy of those, and moves them into its timeline).
public struct PreparedEntries: Sendable {
    public let keys: [String]
    /// No key is listed twice (the usual case): the run and the store then
    /// take the entries as they come, without hashing their keys again.
    public let keysAreUnique: Bool
    /// Each entry's codec bytes (`EntryCodec`), in feed order.
    package let stored: [[UInt8]]
    /// Each entry's own date (`Entry.ownDate`), in feed order.
    package let dates: [Int64?]

    public init(_ entries: [Entry]) {
        keys = EntryKey.keys(of: entries)
        keysAreUnique = Set(keys).count == keys.count
        stored = entries.map(EntryCodec.encode)
        dates = entries.map { $0.ownDate?.secondsSince1970 }
    }

    init(keys: [String], stored: [[UInt8]], dates: [Int64?]) {
        self.keys = keys
        keysAreUnique = true
        self.stored = stored
        self.dates = dates
    }

    public var count: Int { keys.count }

    /// For a store that keeps no entries (`--no-state`): nothing prepared.
    public static let notKept = PreparedEntries(keys: [], stored: [], dates: [])
}
