import Basics
import Subscriptions

/// The id of a merge that names nothing it is known by (no `--id`,
/// `--self-url` or home page link): a hash of its sources' URLs, in order.
/// A state keeps the first one written (`StateStore.keepMergedFeedID`).
enum MergedFeedID {
    static func hash(of list: SubscriptionList) -> UInt64 { hash(of: list.subscriptions.lazy.map(\.url)) }

    static func hash(of urls: some Sequence<String>) -> UInt64 {
        var hasher = Hasher()
        for url in urls { hasher.add(url) }
        return hasher.value
    }

    /// The hash made a URL at a time (a render in parts), the same as `hash(of:)`'s.
    struct Hasher {
        private var hasher = FNV1a()
        private var empty = true

        mutating func add(_ url: String) {
            if !empty { hasher.add(UInt8(ascii: "\n")) }
            empty = false
            hasher.add(url)
        }

        var value: UInt64 { hasher.value }
    }

    /// The id as the feeds write it (Atom's `id`, JSON Feed's `_feedmerge.id`).
    static func text(_ hash: UInt64) -> String { "urn:feedmerge:" + String(hash, radix: 16) }
}
