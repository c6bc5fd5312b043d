import FeedModel
import FeedState

/// A fetched feed's entries as a store that keeps entries holds them once
/// the fetch is recorded, built from the parse and the store's facts
/// rather than read back: so that a fresh run and a later run served from
/// the state (304, failure, deferral) see the same entries in the same order.
enum RememberedEntries {
    /// Dates a fetched feed's entries as the store will hold them, where
    /// they are: one per key (a key listed twice keeps its last content and
    /// place, and its first-seen facts), in feed order, those that may
    /// still get into the timeline (`latestDate` on or after `cutoff`),
    /// then the stored ones the feed no longer lists (`unlisted`), in the
    /// store's order (`StoredEntry.inStoreOrder`).
    ///
    /// A listed entry is written to only where the dating policy changes
    /// its dates, and the array is rebuilt (its entries moved, not copied)
    /// only when an entry is left out or the unlisted ones join.
    /// - Parameters:
    ///   - entries: the feed's listed entries; on return, the remembered ones.
    ///   - keysAreUnique: no key is listed twice (`PreparedEntries.keysAreUnique`).
    ///   - sightings: what the store knew before this fetch.
    /// - Returns: each remembered entry's date.
    static func date(
        _ entries: inout [Entry], keys: [String], keysAreUnique: Bool, sightings: [String: EntrySighting],
        unlisted: consuming [StoredEntry], cutoff: Timestamp?, dating: EntryDating, restamping: Bool,
        feedFirstSeen: Timestamp?, feedDate: Timestamp? = nil
    ) -> [Timestamp?] {
        let now = dating.now
        // Where each key is listed first and last, when some key is listed twice.
        var firstPlace: [String: Int] = [:]
        var lastPlace: [String: Int] = [:]
        if !keysAreUnique {
            for (position, key) in keys.enumerated() {
                if firstPlace[key] == nil { firstPlace[key] = position }
                lastPlace[key] = position
            }
        }
        var places: [Int] = []
        var sighted: [EntrySighting] = []
        places.reserveCapacity(entries.count)
        sighted.reserveCapacity(entries.count)
        for position in entries.indices {
            let key = keys[position]
            if !lastPlace.isEmpty, lastPlace[key] != position { continue }
            let first = firstPlace[key] ?? position
            let known = sightings[key]
            let facts = EntrySighting(
                firstSeen: known?.firstSeen ?? now, lastSeen: now,
                firstDate: known.map(\.firstDate) ?? entries[first].ownDate,
                firstPosition: known?.firstPosition ?? first)
            if let cutoff, facts.latestDate(own: entries[position].ownDate) < cutoff { continue }
            places.append(position)
            sighted.append(facts)
        }
        var unlisted = unlisted
        if unlisted.contains(where: { $0.lastSeen >= now }) {
            // The same run time again (`--now`): entries the feed dropped meet the listed ones.
            var all = consume unlisted
            for (index, position) in places.enumerated() {
                all.append(
                    StoredEntry(
                        key: keys[position], entry: take(&entries[position]), firstSeen: sighted[index].firstSeen,
                        lastSeen: now, firstDate: sighted[index].firstDate, position: position,
                        firstPosition: sighted[index].firstPosition))
            }
            all.sort(by: StoredEntry.inStoreOrder)
            entries = []
            return dateStored(
                &all, into: &entries, dating: dating, restamping: restamping, feedFirstSeen: feedFirstSeen,
                feedDate: feedDate)
        }
        if places.count < entries.count {
            var kept: [Entry] = []
            kept.reserveCapacity(places.count + unlisted.count)
            for position in places { kept.append(take(&entries[position])) }
            entries = kept
        }
        var dates: [Timestamp?] = []
        dates.reserveCapacity(entries.count + unlisted.count)
        let hidesBacklog = dating.hidesBacklog(feedDate: feedDate)
        for index in entries.indices {
            let (date, own) = dating.date(
                published: entries[index].published, updated: entries[index].updated, sighted: sighted[index],
                restamping: restamping, feedFirstSeen: feedFirstSeen, feedDate: feedDate)
            if let own {
                entries[index].published = own.published
                entries[index].updated = own.updated
            }
            let hidden = hidesBacklog && dating.isBacklog(sighted[index], feedFirstSeen: feedFirstSeen)
            dates.append(hidden ? nil : date)
        }
        return dates
            + dateStored(
                &unlisted, into: &entries, dating: dating, restamping: restamping, feedFirstSeen: feedFirstSeen,
                feedDate: feedDate)
    }

    /// Stored entries dated and moved, in their order, to the end of `entries`.
    /// - Returns: their dates.
    static func dateStored(
        _ stored: inout [StoredEntry], into entries: inout [Entry], dating: EntryDating, restamping: Bool,
        feedFirstSeen: Timestamp?, feedDate: Timestamp? = nil
    ) -> [Timestamp?] {
        var dates: [Timestamp?] = []
        dates.reserveCapacity(stored.count)
        entries.reserveCapacity(entries.count + stored.count)
        let hidesBacklog = dating.hidesBacklog(feedDate: feedDate)
        for index in stored.indices {
            let (dated, date) = dating.dated(
                take(&stored[index].entry), sighted: stored[index].sighting, restamping: restamping,
                feedFirstSeen: feedFirstSeen, feedDate: feedDate)
            entries.append(dated)
            let hidden = hidesBacklog && dating.isBacklog(stored[index].sighting, feedFirstSeen: feedFirstSeen)
            dates.append(hidden ? nil : date)
        }
        return dates
    }

    /// The entry moved out, an empty one left in its place.
    private static func take(_ entry: inout Entry) -> Entry {
        var taken = Entry()
        swap(&taken, &entry)
        return taken
    }
}
