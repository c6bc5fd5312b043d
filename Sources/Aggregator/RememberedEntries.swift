import FeedModel
import FeedState

/// A fetched feed's entries as a store that keeps entries holds them once
/// the fetch is recorded, built from the parse and the store's facts
/// rather than read back: so that a fresh run and a later run served from
/// the state (304, failure, deferral) see the same entries in the same order.
enum RememberedEntries {
    /// The listed entries as stored: one per key (a key listed twice keeps
    /// its last content and place, and its first-seen facts), in feed order.
    /// - Parameter sightings: what the store knew before this fetch.
    static func listed(
        _ entries: [Entry], keys: [String], sightings: [String: EntrySighting], now: Timestamp
    ) -> [StoredEntry] {
        var result: [StoredEntry] = []
        result.reserveCapacity(entries.count)
        var slots: [String: Int] = [:]
        var repeated = false
        for (position, entry) in entries.enumerated() {
            let key = keys[position]
            if let slot = slots[key] {
                result[slot].entry = entry
                result[slot].position = position
                repeated = true
                continue
            }
            slots[key] = result.count
            let known = sightings[key]
            result.append(
                StoredEntry(
                    key: key, entry: entry, firstSeen: known?.firstSeen ?? now, lastSeen: now,
                    firstDate: known.map(\.firstDate) ?? entry.ownDate, position: position,
                    firstPosition: known?.firstPosition ?? position))
        }
        if repeated { result.sort { $0.position < $1.position } }
        return result
    }

    /// The listed entries that may still get into the timeline (`latestDate`
    /// on or after `cutoff`), with the stored ones the feed no longer lists,
    /// in the store's order (`StoredEntry.inStoreOrder`).
    static func merged(listed: consuming [StoredEntry], unlisted: [StoredEntry], cutoff: Timestamp?) -> [StoredEntry] {
        let now = listed.first?.lastSeen
        var result = consume listed  // moved: filtered in place, not copied
        if let cutoff { result.removeAll { $0.latestDate < cutoff } }
        guard !unlisted.isEmpty else { return result }
        guard let now, unlisted.contains(where: { $0.lastSeen >= now }) else {
            return result + unlisted  // the usual case: everything unlisted was last seen before this fetch
        }
        // The same run time again (`--now`): entries the feed dropped meet the listed ones.
        return (result + unlisted).sorted(by: StoredEntry.inStoreOrder)
    }
}
