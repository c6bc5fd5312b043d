import Basics
import FeedModel

/// An entry's identity within its feed, as a state stores it: its id, else
/// its link, else a hash of its title and text. The store keeps one entry
/// per key; the run computes the keys once and hands them to the store.
///
/// A link that several id-less entries of the feed share (its home page,
/// a day page) names none of them, as in the timeline's identity rules: a
/// feed of fifteen id-less items that all link to its home page is fifteen
/// entries, not one.
public enum EntryKey {
    /// The keys of a feed's entries, in order.
    public static func keys(of entries: [Entry]) -> [String] {
        var linkUses: [String: Int] = [:]
        for entry in entries where entry.id?.isEmpty != false {
            if let link = entry.link, !link.isEmpty { linkUses[link, default: 0] += 1 }
        }
        return entries.map { entry in
            key(of: entry, linkIsShared: entry.link.map { linkUses[$0, default: 0] > 1 } ?? false)
        }
    }

    /// The key of an entry whose link no other id-less entry of its feed shares.
    public static func of(_ entry: Entry) -> String { key(of: entry, linkIsShared: false) }

    private static func key(of entry: Entry, linkIsShared: Bool) -> String {
        if let id = entry.id, !id.isEmpty { return "id:" + id }
        if !linkIsShared, let link = entry.link, !link.isEmpty { return "link:" + link }
        let text = (entry.title?.value ?? "") + "\n" + (entry.summary?.value ?? entry.content.first?.value ?? "")
        return "hash:" + String(FNV1a.hash(text), radix: 16)  // stable across runs and machines
    }
}
