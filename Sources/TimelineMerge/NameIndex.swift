import FeedModel

/// A name an entry is known by (its id, or its normalized link), hashed
/// once, when the entry comes in.
struct EntryName: Sendable {
    let name: String
    /// Never 0 (which marks an empty place in `NameIndex`).
    let hash: Int

    init(_ name: String) {
        self.init(name, hash: name.hashValue)
    }

    /// `hash` given, so tests can make names collide.
    init(_ name: String, hash: Int) {
        self.name = name
        self.hash = hash == 0 ? 1 : hash
    }
}

/// Entry names to the timeline key of the entry that has them: an
/// open-addressing table over the names' own hashes. Unlike a Dictionary
/// it never hashes again (not when probing, not when growing), and it
/// compares names only when their hashes are equal.
struct NameIndex: Sendable {
    private var hashes: [Int]
    private var names: [String]
    private var keys: [TimelineKey]
    private(set) var count = 0

    init() {
        hashes = Array(repeating: 0, count: 64)
        names = Array(repeating: "", count: 64)
        keys = Array(repeating: TimelineKey(date: 0, subscription: 0, entry: 0), count: 64)
    }

    private var mask: Int { hashes.count - 1 }

    /// Where `name` is, or the empty place where it would go.
    private func place(of name: EntryName) -> (index: Int, found: Bool) {
        var index = name.hash & mask
        while hashes[index] != 0 {
            if hashes[index] == name.hash && names[index] == name.name { return (index, true) }
            index = (index + 1) & mask
        }
        return (index, false)
    }

    subscript(name: EntryName) -> TimelineKey? {
        get {
            let (index, found) = place(of: name)
            return found ? keys[index] : nil
        }
        set {
            if let newValue { set(newValue, for: name) } else { remove(name) }
        }
    }

    private mutating func set(_ key: TimelineKey, for name: EntryName) {
        var (index, found) = place(of: name)
        if found {
            keys[index] = key
            return
        }
        if (count + 1) * 4 > hashes.count * 3 {  // at most 3/4 full
            grow()
            index = place(of: name).index
        }
        hashes[index] = name.hash
        names[index] = name.name
        keys[index] = key
        count += 1
    }

    /// Removes `name`, moving back later names of the same run so that
    /// none is left behind an empty place (no tombstones).
    private mutating func remove(_ name: EntryName) {
        var (hole, found) = place(of: name)
        guard found else { return }
        count -= 1
        var index = hole
        while true {
            index = (index + 1) & mask
            guard hashes[index] != 0 else { break }
            let home = hashes[index] & mask
            // Move it back unless its home lies in (hole, index], cyclically.
            let stays = hole <= index ? (hole < home && home <= index) : (hole < home || home <= index)
            if stays { continue }
            hashes[hole] = hashes[index]
            names[hole] = names[index]
            keys[hole] = keys[index]
            hole = index
        }
        hashes[hole] = 0
        names[hole] = ""
    }

    private mutating func grow() {
        let old = (hashes, names, keys)
        let capacity = hashes.count * 2
        hashes = Array(repeating: 0, count: capacity)
        names = Array(repeating: "", count: capacity)
        keys = Array(repeating: TimelineKey(date: 0, subscription: 0, entry: 0), count: capacity)
        for i in old.0.indices where old.0[i] != 0 {
            var index = old.0[i] & mask
            while hashes[index] != 0 { index = (index + 1) & mask }
            hashes[index] = old.0[i]
            names[index] = old.1[i]
            keys[index] = old.2[i]
        }
    }
}
