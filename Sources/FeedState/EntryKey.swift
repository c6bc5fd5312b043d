import FeedModel

/// An entry's identity within its feed, as a state stores it: its id, else
/// its link, else a hash of its title and text. The store keeps one entry
/// per key; the run computes the keys once and hands them to the store.
public enum EntryKey {
    public static func of(_ entry: Entry) -> String {
        if let id = entry.id, !id.isEmpty { return "id:" + id }
        if let link = entry.link, !link.isEmpty { return "link:" + link }
        let text = (entry.title?.value ?? "") + "\n" + (entry.summary?.value ?? entry.content.first?.value ?? "")
        return "hash:" + String(UInt64(bitPattern: hash(Array(text.utf8))), radix: 16)
    }

    /// FNV-1a: stable across runs and machines.
    static func hash(_ bytes: [UInt8]) -> Int64 {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { value = (value ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int64(bitPattern: value)
    }
}
