/// A map from libxml2 pointers (interned names, namespace declarations) to
/// what they were converted into. A document has a few dozen of each: the
/// first 32 are kept in arrays, found through a 64-slot direct-mapped index
/// (then a linear scan, cheaper than hashing); a hostile document with
/// thousands of distinct names falls back to a dictionary.
struct PointerCache<Value> {
    private var keys: [UnsafeRawPointer] = []
    private var values: [Value] = []
    /// Index into `keys` by a few bits of the pointer; -1 when empty.
    private var slots = [Int8](repeating: -1, count: 64)
    private var overflow: [UnsafeRawPointer: Value] = [:]
    private static var linearLimit: Int { 32 }

    @inline(__always)
    private static func slot(_ key: UnsafeRawPointer) -> Int {
        let bits = UInt(bitPattern: key)
        return Int((bits >> 3 ^ bits >> 9) & 63)
    }

    subscript(key: UnsafeRawPointer) -> Value? {
        mutating get {
            let slot = Self.slot(key)
            let candidate = Int(slots[slot])
            if candidate >= 0 && keys[candidate] == key { return values[candidate] }
            for index in keys.indices where keys[index] == key {
                slots[slot] = Int8(index)
                return values[index]
            }
            return keys.count < Self.linearLimit ? nil : overflow[key]
        }
        set {
            guard let newValue else { return }
            if keys.count < Self.linearLimit {
                slots[Self.slot(key)] = Int8(keys.count)
                keys.append(key)
                values.append(newValue)
            } else {
                overflow[key] = newValue
            }
        }
    }
}
