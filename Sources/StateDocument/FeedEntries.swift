import FeedModel
import FeedState

/// One feed's stored entries as every store on a disk or a server keeps
/// them (SQLite, PostgreSQL): a single value (a document) per feed, read
/// and written whole, with the rules of an outcome (`upsert`), of reading
/// (`entries`, `lazyEntries`, `sightings`) and of retention (`prune`) in one
/// place, so that no store writes them again. A feed is read and
/// written as a unit anyway (its listing replaces the last one; its history
/// is pruned together), and one row per feed costs SQLite one row's work
/// where a row per entry would cost one per entry (sixty for a typical feed).
///
/// The document is a version byte, then each entry's facts (key, first and
/// last seen, dates, places) and its codec bytes (`EntryCodec`), the whole
/// compressed as one block (`EntryCompression`, version 2). One block per
/// feed rather than one per entry: a feed's entries share their markup and
/// words, so one block takes about 60% of the bytes of the entries
/// compressed one by one (on the benchmark corpus), and one LZ4 call per
/// feed costs less than sixty. The block's checksum makes a
/// damaged document unreadable as a whole (the feed's validators are then
/// dropped and its next fetch lists its entries again); an entry whose
/// codec bytes do not decode is still just that entry, unreadable.
///
/// Version 1 (schema 4's documents: the rows uncompressed, each entry's
/// bytes compressed alone) is read as well; a document is written as
/// version 2 whenever it is written (`document`), and schema 5 rewrites
/// every stored one.
public struct FeedEntries: Sendable, FeedHistory.Document {
    package struct Row: Sendable {
        var key: String
        var firstSeen: Int64
        var lastSeen: Int64
        /// The entry's own date the first time it was seen, and when last seen.
        var firstDate: Int64?
        var entryDate: Int64?
        /// The latest date a timeline can give the entry (see `StoredEntry.latestDate`):
        /// its own date, else first seen; or the date first seen, if later.
        var latestDate: Int64
        var position: Int
        var firstPosition: Int
        /// The entry's codec bytes (`EntryCodec`), or in a version 1 document its stored form
        /// (`EntryCompression`): a slice of the bytes it was read from, or a prepared form.
        var stored: ArraySlice<UInt8>

        var place: RetentionRule.Place { RetentionRule.Place(lastSeen: lastSeen, position: position, key: key) }

        package init(
            key: String, firstSeen: Int64, lastSeen: Int64, firstDate: Int64?, entryDate: Int64?, latestDate: Int64,
            position: Int, firstPosition: Int, stored: ArraySlice<UInt8>
        ) {
            self.key = key
            self.firstSeen = firstSeen
            self.lastSeen = lastSeen
            self.firstDate = firstDate
            self.entryDate = entryDate
            self.latestDate = latestDate
            self.position = position
            self.firstPosition = firstPosition
            self.stored = stored
        }

        var sighting: EntrySighting {
            EntrySighting(
                firstSeen: stamp(firstSeen), lastSeen: stamp(lastSeen), firstDate: firstDate.map(stamp),
                firstPosition: firstPosition)
        }
    }

    private(set) var rows: [Row] = []
    /// Each key's row, for `upsert`; made there when first needed (a document
    /// read to serve its entries never needs it).
    private var slots: [String: Int] = [:]

    /// The rows as they are (schema 4's documents; a document too small to gain from compression).
    static let plainVersion: UInt8 = 1
    /// The rows compressed as one block.
    static let compressedVersion: UInt8 = 2
    /// A document that says it holds more than this is damaged (SQLite's
    /// own limit on a value is a billion bytes).
    static let largest = 1 << 30

    public init() {}

    package init(rows: [Row]) {
        for row in rows {
            if let slot = slots[row.key] {
                self.rows[slot] = row
            } else {
                slots[row.key] = self.rows.count
                self.rows.append(row)
            }
        }
    }

    /// - Returns: nil when the bytes are not a document of a known version (damaged).
    public init?(document: [UInt8]) {
        switch document.first {
        case Self.plainVersion:
            self.init(rows: document, from: 1)
        case Self.compressedVersion:
            guard let plain = EntryCompression.decompress(document[1...], largest: Self.largest) else { return nil }
            self.init(rows: plain, from: 0)
        default:
            return nil
        }
    }

    /// The rows serialized from `start` to the end of `bytes`.
    private init?(rows bytes: [UInt8], from start: Int) {
        var r = EntryCodec.Reader(bytes: bytes)
        r.index = start
        let count = r.count()
        rows.reserveCapacity(count)
        for _ in 0..<count {
            let row = Row(
                key: r.string() ?? "", firstSeen: r.integer() ?? 0, lastSeen: r.integer() ?? 0,
                firstDate: r.integer(), entryDate: r.integer(), latestDate: r.integer() ?? 0,
                position: Int(r.integer() ?? 0), firstPosition: Int(r.integer() ?? 0), stored: r.blobSlice())
            if r.failed { return nil }
            rows.append(row)
        }
        guard !r.failed, r.index == bytes.count else { return nil }
    }

    /// The document to store: version 2, its rows compressed as one block
    /// (version 1 when that would not be smaller). An entry read from a
    /// version 1 document is stored by its codec bytes again, so that it
    /// is not compressed twice.
    public var document: [UInt8] {
        var out = EntryCodec.Writer()
        out.bytes.reserveCapacity(16 + rows.reduce(0) { $0 + $1.key.utf8.count + $1.stored.count + 40 })
        out.count(rows.count)
        for row in rows {
            out.string(row.key)
            out.integer(row.firstSeen)
            out.integer(row.lastSeen)
            out.integer(row.firstDate)
            out.integer(row.entryDate)
            out.integer(row.latestDate)
            out.integer(Int64(row.position))
            out.integer(Int64(row.firstPosition))
            // (Codec bytes never begin with the marker; bytes that would are kept as they were,
            // so that a document written back reads back the same.)
            if row.stored.first == EntryCompression.compressed, let plain = EntryCompression.decompress(row.stored),
                plain.first != EntryCompression.compressed
            {
                out.blob(plain)
            } else {
                out.blob(row.stored)
            }
        }
        guard let packed = EntryCompression.compress(out.bytes, prefix: Self.compressedVersion) else {
            return [Self.plainVersion] + out.bytes
        }
        return packed
    }

    public var isEmpty: Bool { rows.isEmpty }

    /// The entries a feed lists now, in feed order: a known key keeps its
    /// first-seen facts and takes the new content, place and date (a key
    /// listed twice keeps its last); a new key is first seen now.
    public mutating func upsert(_ prepared: PreparedEntries, now: Int64) {
        // A feed's first listing whose keys do not repeat has every key new: no index is
        // needed (it is made when a later listing needs it).
        let indexed = !(rows.isEmpty && prepared.keysAreUnique)
        if indexed && slots.isEmpty { for (index, row) in rows.enumerated() { slots[row.key] = index } }
        rows.reserveCapacity(rows.count + prepared.count)
        for position in 0..<prepared.count {
            let key = prepared.keys[position]
            let date = prepared.dates[position]
            if indexed, let slot = slots[key] {
                rows[slot].stored = prepared.stored[position][...]
                rows[slot].position = position
                rows[slot].lastSeen = now
                rows[slot].entryDate = date
                let row = rows[slot]
                rows[slot].latestDate = max(date ?? row.firstSeen, row.firstDate ?? row.firstSeen)
            } else {
                if indexed { slots[key] = rows.count }
                rows.append(
                    Row(
                        key: key, firstSeen: now, lastSeen: now, firstDate: date, entryDate: date,
                        latestDate: date ?? now, position: position, firstPosition: position,
                        stored: prepared.stored[position][...]))
            }
        }
    }

    public var sightings: [String: EntrySighting] {
        var result: [String: EntrySighting] = [:]
        result.reserveCapacity(rows.count)
        for row in rows { result[row.key] = row.sighting }
        return result
    }

    /// The entries whose latest possible date is on or after `cutoff`, but
    /// for those in `except`, in the store's order; only those are decoded.
    /// - Parameter unreadable: counts the entries whose stored form cannot be decoded.
    public func entries(notOlderThan cutoff: Timestamp?, except: Set<String>, unreadable: inout Int) -> [StoredEntry] {
        chosen(notOlderThan: cutoff, except: except).compactMap { index in
            let row = rows[index]
            guard let entry = EntryCompression.entry(row.stored) else {
                unreadable += 1
                return nil
            }
            return StoredEntry(
                key: row.key, entry: entry, firstSeen: stamp(row.firstSeen), lastSeen: stamp(row.lastSeen),
                firstDate: row.firstDate.map(stamp), position: row.position, firstPosition: row.firstPosition)
        }
    }

    /// `entries(notOlderThan:except: [])`, each only skimmed (`LazyStoredEntry`).
    public func lazyEntries(notOlderThan cutoff: Timestamp?, unreadable: inout Int) -> [LazyStoredEntry] {
        chosen(notOlderThan: cutoff, except: []).compactMap { index in
            let row = rows[index]
            guard let bytes = EntryCompression.codecBytes(row.stored),
                let entry = LazyStoredEntry(key: row.key, codecBytes: bytes, sighting: row.sighting)
            else {
                unreadable += 1
                return nil
            }
            return entry
        }
    }

    /// The rows whose latest possible date is on or after `cutoff`, but for
    /// those in `except`, in the store's order.
    private func chosen(notOlderThan cutoff: Timestamp?, except: Set<String>) -> [Int] {
        let least = cutoff?.secondsSince1970 ?? Int64.min
        var chosen = rows.indices.filter {
            rows[$0].latestDate >= least && (except.isEmpty || !except.contains(rows[$0].key))
        }
        chosen.sort { Self.inStoreOrder(rows[$0], rows[$1]) }
        return chosen
    }

    /// What bounds the entries' dates (`StoredDates`), split at `pivot`.
    public func dates(pivot: Int64) -> StoredDates {
        var dates = StoredDates()
        for row in rows {
            dates.add(
                firstSeen: row.firstSeen, firstDate: row.firstDate, entryDate: row.entryDate,
                latestDate: row.latestDate, pivot: pivot)
        }
        return dates
    }

    /// How many entries, and the newest one's date (its own, else first seen).
    public var summary: (count: Int, newest: Timestamp?) {
        (rows.count, rows.map { $0.entryDate ?? $0.firstSeen }.max().map(stamp))
    }

    /// Drops what retention's rule does not keep.
    /// - Returns: whether any entry went.
    public mutating func prune(by rule: RetentionRule) -> Bool {
        guard let kept = rule.kept(rows.map(\.place)) else { return false }
        rows = kept.map { rows[$0] }
        slots = Dictionary(uniqueKeysWithValues: rows.enumerated().map { ($1.key, $0) })
        return true
    }

    /// The store's order (`RetentionRule.Place.inStoreOrder`).
    private static func inStoreOrder(_ a: Row, _ b: Row) -> Bool {
        RetentionRule.Place.inStoreOrder(a.place, b.place)
    }
}
