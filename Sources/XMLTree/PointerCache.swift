/// A map from libxml2 pointers (interned names, namespace declarations) to
/// what they were converted into. A document has a few dozen of each, so the
/// first 32 are found by a linear scan, cheaper than hashing; a hostile
/// document with thousands of distinct names falls back to a dictionary.
struct PointerCache<Value> {
    private var keys: [UnsafeRawPointer] = []
    private var values: [Value] = []
    private var overflow: [UnsafeRawPointer: Value] = [:]
    private static var linearLimit: Int { 32 }

    subscript(key: UnsafeRawPointer) -> Value? {
        get {
            for index in keys.indices where keys[index] == key { return values[index] }
            return keys.count < Self.linearLimit ? nil : overflow[key]
        }
        set {
            guard let newValue else { return }
            if keys.count < Self.linearLimit {
                keys.append(key)
                values.append(newValue)
            } else {
                overflow[key] = newValue
            }
        }
    }
}
