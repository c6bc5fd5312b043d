import Basics
import FeedFetch
import FeedParse

/// A subscription list packed for a process that holds it for long, however
/// long it is (a worker over a million feeds): each subscription's URL, title
/// and home page one after another in one byte buffer; the rest of it (its
/// folder, the file that listed it, its properties and filters), which the
/// feeds of one list mostly share, kept once for all that share it (a
/// "shape"); a subscription found by URL through an open-addressing table of
/// positions. About 60 bytes a feed besides its URL and title, against some
/// 400 for `Subscription` values indexed by URL.
///
/// Read into like a `SubscriptionList` (`SourceReader.read(_:into:)`), with
/// the same rule for a feed listed twice; read back by position or by URL.
public struct PackedSubscriptions: SubscriptionCollection, Sendable {
    public var title: String?
    public var ownerName: String?
    public var ownerEmail: String?
    public var homePage: String?
    public var warnings: [String] = []
    /// A feed read with the sources (standard input), by subscription URL.
    public var alreadyRead: [String: FetchResponse] = [:]

    /// Each subscription: its shape's number (4 bytes, little-endian), then
    /// its URL, title and home page, each a length + 1 (0: none) as a
    /// variable-length integer and that many UTF-8 bytes.
    private var bytes: [UInt8] = []
    /// Where each subscription begins in `bytes`.
    private var starts: [Int] = []
    /// The shapes: subscriptions without URL, title and home page.
    private var shapes: [Subscription] = []
    private var shapeNumbers: [Subscription: UInt32] = [:]
    /// Linear probing over the hash of each subscription's normalized URL
    /// (`LinkNormalizer`: the key a feed listed twice is known by): a slot is
    /// 0 (empty) or the hash's lower 32 bits (its slot is where they point)
    /// over the position + 1.
    private var slots = [UInt64](repeating: 0, count: 16)

    public init() {}

    /// The same subscriptions, packed.
    public init(_ list: SubscriptionList) {
        title = list.title
        ownerName = list.ownerName
        ownerEmail = list.ownerEmail
        homePage = list.homePage
        warnings = list.warnings
        alreadyRead = list.alreadyRead
        for subscription in list.subscriptions {
            append(subscription, normalized: LinkNormalizer.normalize(subscription.url))
        }
    }

    public var count: Int { starts.count }
    public var isEmpty: Bool { starts.isEmpty }
    public var indices: Range<Int> { starts.indices }

    /// Adds a subscription unless the same feed is already listed.
    public mutating func add(_ subscription: Subscription, read: FetchResponse?) {
        let normalized = LinkNormalizer.normalize(subscription.url)
        let listed = position(hash: FNV1a.hash(normalized)) { LinkNormalizer.normalize(url(at: $0)) == normalized }
        guard listed == nil else {
            warnings.append(SubscriptionList.listedTwice(subscription.url))
            return
        }
        append(subscription, normalized: normalized)
        if let read { alreadyRead[subscription.url] = read }
    }

    /// The subscription listed at a URL, exactly as listed.
    public func subscription(for url: String) -> Subscription? {
        position(hash: FNV1a.hash(LinkNormalizer.normalize(url))) { self.url(at: $0) == url }.map(subscription(at:))
    }

    /// Whether a URL is listed, exactly as it is.
    public func contains(_ url: String) -> Bool {
        position(hash: FNV1a.hash(LinkNormalizer.normalize(url))) { self.url(at: $0) == url } != nil
    }

    public func subscription(at position: Int) -> Subscription {
        var reading = Cursor(at: starts[position])
        var subscription = shapes[Int(reading.shape(in: bytes))]
        subscription.url = reading.text(in: bytes) ?? ""
        subscription.title = reading.text(in: bytes)
        subscription.htmlURL = reading.text(in: bytes)
        return subscription
    }

    public func url(at position: Int) -> String {
        var reading = Cursor(at: starts[position] + 4)
        return reading.text(in: bytes) ?? ""
    }

    /// The URLs, in list order.
    public var urls: LazyMapCollection<Range<Int>, String> { indices.lazy.map { url(at: $0) } }

    /// Changes what subscriptions share (each shape once: the subscription
    /// it is given has no URL, title or home page).
    public mutating func changeShared<Failure: Error>(_ change: (inout Subscription) throws(Failure) -> Void)
        throws(Failure)
    {
        for index in shapes.indices { try change(&shapes[index]) }
        // Two shapes made the same stay two: only new subscriptions look the shapes up.
        shapeNumbers = [:]
        for (number, shape) in shapes.enumerated() where shapeNumbers[shape] == nil {
            shapeNumbers[shape] = UInt32(number)
        }
    }

    private mutating func append(_ subscription: Subscription, normalized: String) {
        var shape = subscription
        shape.url = ""
        shape.title = nil
        shape.htmlURL = nil
        let number: UInt32
        if let known = shapeNumbers[shape] {
            number = known
        } else {
            number = UInt32(shapes.count)
            shapes.append(shape)
            shapeNumbers[shape] = number
        }
        starts.append(bytes.count)
        withUnsafeBytes(of: number.littleEndian) { bytes.append(contentsOf: $0) }
        for text in [subscription.url, subscription.title, subscription.htmlURL] { append(text) }
        if starts.count * 2 > slots.count { grow() }
        insert(position: starts.count - 1, hash: FNV1a.hash(normalized))
    }

    private mutating func append(_ text: String?) {
        var length = UInt64(text.map { $0.utf8.count + 1 } ?? 0)
        while length >= 0x80 {
            bytes.append(UInt8(length & 0x7F) | 0x80)
            length >>= 7
        }
        bytes.append(UInt8(length))
        if let text { bytes.append(contentsOf: text.utf8) }
    }

    /// The position whose slot's hash matches and that `matches` accepts.
    private func position(hash: UInt64, matches: (Int) -> Bool) -> Int? {
        let key = hash & 0xFFFF_FFFF
        let mask = slots.count - 1
        var slot = Int(key) & mask
        while slots[slot] != 0 {
            if slots[slot] >> 32 == key {
                let position = Int(slots[slot] & 0xFFFF_FFFF) - 1
                if matches(position) { return position }
            }
            slot = (slot + 1) & mask
        }
        return nil
    }

    private mutating func insert(position: Int, hash: UInt64) {
        let key = hash & 0xFFFF_FFFF
        let mask = slots.count - 1
        var slot = Int(key) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = key << 32 | UInt64(position + 1)
    }

    /// Twice the slots, each filled one placed again by the hash bits it keeps.
    private mutating func grow() {
        let old = slots
        slots = [UInt64](repeating: 0, count: slots.count * 2)
        for slot in old where slot != 0 { insert(position: Int(slot & 0xFFFF_FFFF) - 1, hash: slot >> 32) }
    }

    /// Reads one subscription's fields in order.
    private struct Cursor {
        var offset: Int

        init(at offset: Int) { self.offset = offset }

        mutating func shape(in bytes: [UInt8]) -> UInt32 {
            var number: UInt32 = 0
            for shift in 0..<4 { number |= UInt32(bytes[offset + shift]) << (8 * shift) }
            offset += 4
            return number
        }

        mutating func text(in bytes: [UInt8]) -> String? {
            var length = 0
            var shift = 0
            while true {
                let byte = bytes[offset]
                offset += 1
                length |= Int(byte & 0x7F) << shift
                shift += 7
                if byte < 0x80 { break }
            }
            guard length > 0 else { return nil }
            defer { offset += length - 1 }
            return String(decoding: bytes[offset..<(offset + length - 1)], as: UTF8.self)
        }
    }
}
