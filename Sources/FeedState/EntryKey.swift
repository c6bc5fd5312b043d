import Basics
import FeedModel

/// An entry's identity within its feed, as a state stores it: its id, else
/// its link, else a hash of its title and text. The store keeps one entry
/// per key; the run computes the keys once and hands them to the store.
public enum EntryKey {
    public static func of(_ entry: Entry) -> String {
        if let id = entry.id, !id.isEmpty { return "id:" + id }
        if let link = entry.link, !link.isEmpty { return "link:" + link }
        let text = (entry.title?.value ?? "") + "\n" + (entry.summary?.value ?? entry.content.first?.value ?? "")
        return "hash:" + String(FNV1a.hash(text), radix: 16)  // stable across runs and machines
    }
}
