/// The order of the timeline: newest first; equal dates by subscription
/// order, then by the entry's place in its feed. Unique per entry, so the
/// same inputs always give the same order.
struct TimelineKey: Comparable, Sendable {
    var date: Int64
    var subscription: Int32
    var entry: Int32
    /// Where the entry is stored; not part of the order.
    var slot: Int32 = 0

    static func < (a: TimelineKey, b: TimelineKey) -> Bool {
        if a.date != b.date { return a.date > b.date }
        if a.subscription != b.subscription { return a.subscription < b.subscription }
        return a.entry < b.entry
    }
}
