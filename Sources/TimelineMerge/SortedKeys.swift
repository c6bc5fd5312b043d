/// A sorted sequence of keys kept in chunks of at most `chunkCapacity`
/// (a one-level B-tree): an insertion is two binary searches and a shift
/// of at most one chunk, not of the whole timeline, so a million inserts
/// cost about as much as sorting a million keys.
struct SortedKeys<Key: Comparable & Sendable>: Sendable {
    private var chunks: [[Key]] = []
    private(set) var count = 0
    private let chunkCapacity: Int

    init(chunkCapacity: Int = 512) { self.chunkCapacity = chunkCapacity }

    var first: Key? { chunks.first?.first }
    var last: Key? { chunks.last?.last }

    /// Inserts after every key not greater than `key` (upper bound).
    mutating func insert(_ key: Key) {
        guard !chunks.isEmpty else {
            chunks = [[key]]
            count = 1
            return
        }
        let c = chunkIndex(for: key)
        let position = Self.upperBound(of: key, in: chunks[c])
        chunks[c].insert(key, at: position)
        count += 1
        if chunks[c].count > chunkCapacity {
            let half = chunks[c].count / 2
            let tail = Array(chunks[c][half...])
            chunks[c].removeSubrange(half...)
            chunks.insert(tail, at: c + 1)
        }
    }

    /// Removes one key equal to `key`. - Returns: whether it was there.
    @discardableResult
    mutating func remove(_ key: Key) -> Bool {
        guard !chunks.isEmpty else { return false }
        let c = chunkIndex(for: key)
        let position = Self.lowerBound(of: key, in: chunks[c])
        guard position < chunks[c].count, chunks[c][position] == key else { return false }
        chunks[c].remove(at: position)
        count -= 1
        if chunks[c].isEmpty { chunks.remove(at: c) }
        return true
    }

    @discardableResult
    mutating func removeLast() -> Key? {
        guard let key = chunks.last?.last else { return nil }
        chunks[chunks.count - 1].removeLast()
        if chunks[chunks.count - 1].isEmpty { chunks.removeLast() }
        count -= 1
        return key
    }

    /// Every key in order.
    var all: [Key] { chunks.flatMap { $0 } }

    /// The chunk a key belongs in: the last whose first key is not greater.
    private func chunkIndex(for key: Key) -> Int {
        var low = 0
        var high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            if key < chunks[middle][0] { high = middle } else { low = middle + 1 }
        }
        return max(0, low - 1)
    }

    private static func upperBound(of key: Key, in chunk: [Key]) -> Int {
        var low = 0
        var high = chunk.count
        while low < high {
            let middle = (low + high) / 2
            if key < chunk[middle] { high = middle } else { low = middle + 1 }
        }
        return low
    }

    private static func lowerBound(of key: Key, in chunk: [Key]) -> Int {
        var low = 0
        var high = chunk.count
        while low < high {
            let middle = (low + high) / 2
            if chunk[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
