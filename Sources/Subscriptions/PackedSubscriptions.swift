import Basics
import FeedFetch
import FeedParse

/// A subscription list packed for a process that holds it for long, however
/// long it is (a worker over a million feeds): each subscription's URL, title
/// and home page one after another in byte buffers; the rest of it (its
/// folder, the file that listed it, its properties and filters), which the
/// feeds of one list mostly share, kept once for all that share it (a
/// "shape"); a subscription found by URL through an open-addressing table of
/// positions. About 20 bytes a feed besides its URL and title (72 MB for the
/// million feeds of `scripts/bench-workers`), against some 400 for
/// `Subscription` values indexed by URL. Past `memoryLimit` bytes, each full
/// chunk of the subscriptions' bytes is written to a temporary file
/// (`SpillFile`) and read back when a subscription in it is asked for (a
/// claim's few thousand feeds, the list once an hour): what stays in memory
/// is 12 to 20 bytes a feed, the table and each feed's place and key.
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

    /// Each subscription: its shape's number, then its URL, title and home
    /// page, each a length + 1 (0: none) and that many UTF-8 bytes; the
    /// numbers are variable-length integers (7 bits a byte).
    /// They are kept in chunks of 1 MiB (one longer subscription in one of its
    /// own), so that the list grows without ever being copied whole.
    private var chunks: [[UInt8]] = []
    private static let chunkBits = 20
    /// Where each chunk written to `file` is in it (nil: held in `chunks`; one in the file
    /// holds no bytes there). Only full chunks are written, and never changed after.
    private var written: [Range<Int>?] = []
    /// The bytes of chunks held in memory past which each chunk filled is written to the file.
    public let memoryLimit: Int
    /// Shared by the list's copies, which write each its own chunks after the others'.
    private var file: SpillFile?
    /// The file could not be made or written: every chunk is held from then on.
    private var cannotWrite = false
    /// Where each subscription begins: its chunk's number over `chunkBits` bits
    /// of where in the chunk.
    private var starts: [UInt32] = []
    /// The lower 32 bits of the hash of each subscription's normalized URL
    /// (`LinkNormalizer`: the key a feed listed twice is known by).
    private var keys: [UInt32] = []
    /// The shapes: subscriptions without URL, title and home page.
    private var shapes: [Subscription] = []
    private var shapeNumbers: [Subscription: Int] = [:]
    /// Linear probing by key: each slot 0 (empty) or a position + 1.
    private var slots = [UInt32](repeating: 0, count: 16)

    /// The full chunks' bytes held before they go to the file: 4 MiB, some 75,000 feeds (a
    /// claim's lookups and the hourly pass read the rest from the file, through the page cache).
    public static let defaultMemoryLimit = 4 << 20

    public init(memoryLimit: Int = defaultMemoryLimit) {
        self.memoryLimit = memoryLimit
    }

    /// The same subscriptions, packed.
    public init(_ list: SubscriptionList, memoryLimit: Int = defaultMemoryLimit) {
        self.memoryLimit = memoryLimit
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
    /// The bytes of subscriptions kept in the temporary file rather than in memory.
    public var bytesInFile: Int { written.reduce(0) { $0 + ($1?.count ?? 0) } }
    public var isEmpty: Bool { starts.isEmpty }
    public var indices: Range<Int> { starts.indices }

    /// Adds a subscription unless the same feed is already listed.
    public mutating func add(_ subscription: Subscription, read: FetchResponse?) {
        let normalized = LinkNormalizer.normalize(subscription.url)
        let listed = position(key: Self.key(normalized)) { LinkNormalizer.normalize(url(at: $0)) == normalized }
        guard listed == nil else {
            warnings.append(SubscriptionList.listedTwice(subscription.url))
            return
        }
        append(subscription, normalized: normalized)
        if let read { alreadyRead[subscription.url] = read }
    }

    public var mark: SubscriptionMark { SubscriptionMark(subscriptions: count, warnings: warnings.count) }

    public mutating func rollBack(to mark: SubscriptionMark) {
        guard mark.subscriptions < count else { return warnings.removeSubrange(mark.warnings...) }
        if !alreadyRead.isEmpty {
            for url in urls(in: mark.subscriptions..<count) { alreadyRead[url] = nil }
        }
        let (chunk, offset) = Self.place(of: starts[mark.subscriptions])
        // The chunk it ends in is held again, and is the one filled next.
        if written[chunk] != nil { chunks[chunk] = read(chunk: chunk) }
        written[chunk] = nil
        chunks.removeSubrange((chunk + 1)...)
        written.removeSubrange((chunk + 1)...)
        chunks[chunk].removeSubrange(offset...)
        starts.removeSubrange(mark.subscriptions...)
        keys.removeSubrange(mark.subscriptions...)
        slots = [UInt32](repeating: 0, count: slots.count)
        for position in starts.indices { place(position) }
        warnings.removeSubrange(mark.warnings...)
    }

    /// The subscription listed at a URL, exactly as listed.
    public func subscription(for url: String) -> Subscription? {
        position(key: Self.key(LinkNormalizer.normalize(url))) { self.url(at: $0) == url }.map(subscription(at:))
    }

    /// Whether a URL is listed, exactly as it is.
    public func contains(_ url: String) -> Bool {
        position(key: Self.key(LinkNormalizer.normalize(url))) { self.url(at: $0) == url } != nil
    }

    public func subscription(at position: Int) -> Subscription {
        subscription(of: record(at: position))
    }

    public func url(at position: Int) -> String { record(at: position, urlOnly: true).url ?? "" }

    /// The subscriptions of these positions, in order: each chunk in the file read once.
    public func subscriptions(in positions: Range<Int>) -> [Subscription] {
        var reader = ChunkReader(list: self)
        return positions.map { subscription(of: reader.record(at: $0)) }
    }

    /// The URLs of these positions, in order: each chunk in the file read once.
    public func urls(in positions: Range<Int>) -> [String] {
        var reader = ChunkReader(list: self)
        return positions.map { reader.record(at: $0, urlOnly: true).url ?? "" }
    }

    /// The URLs of the subscriptions on these hosts (`URLAuthority.host(of:)`), by host, in
    /// list order: one pass over the list.
    public func urls(onHosts hosts: Set<String>) -> [String: [String]] { URLAuthority.urls(urls, onHosts: hosts) }

    /// The URLs, in list order (each chunk in the file read once).
    public var urls: URLs { URLs(list: self) }

    /// The URLs in list order, unpacked one at a time.
    public struct URLs: Sequence, Sendable {
        let list: PackedSubscriptions

        public var underestimatedCount: Int { list.count }

        public func makeIterator() -> Iterator { Iterator(reader: ChunkReader(list: list), end: list.count) }

        public struct Iterator: IteratorProtocol {
            var reader: ChunkReader
            var position = 0
            let end: Int

            public mutating func next() -> String? {
                guard position < end else { return nil }
                defer { position += 1 }
                return reader.record(at: position, urlOnly: true).url ?? ""
            }
        }
    }

    /// Changes what subscriptions share (each shape once: the subscription
    /// it is given has no URL, title or home page).
    public mutating func changeShared<Failure: Error>(_ change: (inout Subscription) throws(Failure) -> Void)
        throws(Failure)
    {
        for index in shapes.indices { try change(&shapes[index]) }
        // Two shapes made the same stay two: only new subscriptions look the shapes up.
        shapeNumbers = [:]
        for (number, shape) in shapes.enumerated() where shapeNumbers[shape] == nil {
            shapeNumbers[shape] = number
        }
    }

    /// - Parameter normalized: its URL normalized, which no subscription of the list has.
    private mutating func append(_ subscription: Subscription, normalized: String) {
        let texts = [subscription.url, subscription.title, subscription.htmlURL]
        let size = texts.reduce(9) { $0 + 9 + ($1?.utf8.count ?? 0) }  // at most
        let chunkBytes = 1 << Self.chunkBits
        if chunks.isEmpty || chunks[chunks.count - 1].count + size > chunkBytes {
            guard chunks.count < 1 << (32 - Self.chunkBits) else {
                warnings.append("\(subscription.url): not listed: the list's 4 GiB are full")
                return
            }
            if !chunks.isEmpty { filled(chunks.count - 1) }
            chunks.append([])
            written.append(nil)
            chunks[chunks.count - 1].reserveCapacity(max(chunkBytes, size))
        }
        let start = UInt32(chunks.count - 1) << Self.chunkBits | UInt32(chunks[chunks.count - 1].count)
        var shape = subscription
        shape.url = ""
        shape.title = nil
        shape.htmlURL = nil
        let number: Int
        if let known = shapeNumbers[shape] {
            number = known
        } else {
            number = shapes.count
            shapes.append(shape)
            shapeNumbers[shape] = number
        }
        starts.append(start)
        append(number: number)
        for text in texts {
            append(number: text.map { $0.utf8.count + 1 } ?? 0)
            if let text { chunks[chunks.count - 1].append(contentsOf: text.utf8) }
        }
        keys.append(Self.key(normalized))
        if starts.count * 2 > slots.count {
            slots = [UInt32](repeating: 0, count: slots.count * 2)
            for position in starts.indices { place(position) }
        } else {
            place(starts.count - 1)
        }
    }

    /// A chunk full: written to the file when the chunks held pass `memoryLimit`.
    private mutating func filled(_ chunk: Int) {
        // Once a MiB: the chunks in the file hold no bytes here.
        guard !cannotWrite, chunks.reduce(0, { $0 + $1.count }) > memoryLimit else { return }
        if file == nil { file = SpillFile(prefix: "feedmerge-list") }
        guard let file, let range = file.append(chunks[chunk]) else {
            cannotWrite = true
            return
        }
        written[chunk] = range
        chunks[chunk] = []
    }

    /// A chunk's bytes, read from the file when it was written there.
    private func read(chunk: Int) -> [UInt8] {
        guard let range = written[chunk], let file else { return chunks[chunk] }
        return Self.read(file, range)
    }

    /// Bytes this list wrote, read back. A temporary file the process wrote and holds open
    /// that cannot be read (an I/O error of the disk under it) leaves the list without its
    /// subscriptions: the process stops, saying why, rather than fetch feeds it cannot name.
    private static func read(_ file: SpillFile, _ range: Range<Int>) -> [UInt8] {
        switch file.read(at: range.lowerBound, count: range.count) {
        case .success(let bytes): return bytes
        case .failure(let unreadable):
            fatalError("the subscription list's temporary file (in TMPDIR) cannot be read: \(unreadable.reason)")
        }
    }

    /// A subscription's fields as packed.
    struct Record {
        var shape = 0
        var url: String?
        var title: String?
        var htmlURL: String?

        /// The record at `offset` (with `urlOnly`, its shape and URL); nil when the bytes end
        /// before it does.
        init?(_ bytes: [UInt8], at offset: Int, urlOnly: Bool = false) {
            var reading = Cursor(at: offset)
            guard let shape = reading.number(in: bytes), let url = reading.text(in: bytes) else { return nil }
            self.shape = shape
            self.url = url
            guard !urlOnly else { return }
            guard let title = reading.text(in: bytes), let htmlURL = reading.text(in: bytes) else { return nil }
            self.title = title
            self.htmlURL = htmlURL
        }
    }

    private func subscription(of record: Record) -> Subscription {
        var subscription = shapes[record.shape]
        subscription.url = record.url ?? ""
        subscription.title = record.title
        subscription.htmlURL = record.htmlURL
        return subscription
    }

    /// One subscription's record: from its chunk held, or from a few bytes of the file (all
    /// of its chunk after it when they are not enough).
    private func record(at position: Int, urlOnly: Bool = false) -> Record {
        let (chunk, offset) = Self.place(of: starts[position])
        guard let range = written[chunk], let file else {
            return Record(chunks[chunk], at: offset, urlOnly: urlOnly)!
        }
        let start = range.lowerBound + offset
        if range.upperBound - start > 512,
            let record = Record(Self.read(file, start..<start + 512), at: 0, urlOnly: urlOnly)
        {
            return record
        }
        return Record(Self.read(file, start..<range.upperBound), at: 0, urlOnly: urlOnly)!
    }

    /// Records read in list order, holding one chunk at a time.
    struct ChunkReader {
        let list: PackedSubscriptions
        var chunk = -1
        var bytes: [UInt8] = []

        mutating func record(at position: Int, urlOnly: Bool = false) -> Record {
            let (chunk, offset) = PackedSubscriptions.place(of: list.starts[position])
            if chunk != self.chunk {
                self.chunk = chunk
                bytes = list.read(chunk: chunk)
            }
            return Record(bytes, at: offset, urlOnly: urlOnly)!
        }
    }

    private mutating func append(number: Int) {
        var number = number
        while number >= 0x80 {
            chunks[chunks.count - 1].append(UInt8(number & 0x7F) | 0x80)
            number >>= 7
        }
        chunks[chunks.count - 1].append(UInt8(number))
    }

    /// A subscription's chunk and where in it it begins.
    private static func place(of start: UInt32) -> (chunk: Int, offset: Int) {
        (Int(start >> chunkBits), Int(start & ((1 << chunkBits) - 1)))
    }

    private static func key(_ normalized: String) -> UInt32 { UInt32(truncatingIfNeeded: FNV1a.hash(normalized)) }

    /// The position with this key that `matches` accepts.
    private func position(key: UInt32, matches: (Int) -> Bool) -> Int? {
        let mask = slots.count - 1
        var slot = Int(key) & mask
        while slots[slot] != 0 {
            let position = Int(slots[slot]) - 1
            if keys[position] == key && matches(position) { return position }
            slot = (slot + 1) & mask
        }
        return nil
    }

    private mutating func place(_ position: Int) {
        let mask = slots.count - 1
        var slot = Int(keys[position]) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = UInt32(position + 1)
    }

    /// Reads one subscription's fields in order.
    private struct Cursor {
        var offset: Int

        init(at offset: Int) { self.offset = offset }

        /// Nil when the bytes end first.
        mutating func number(in bytes: [UInt8]) -> Int? {
            var number = 0
            var shift = 0
            while true {
                guard offset < bytes.count else { return nil }
                let byte = bytes[offset]
                offset += 1
                number |= Int(byte & 0x7F) << shift
                shift += 7
                if byte < 0x80 { return number }
            }
        }

        /// A text or none (`.some(nil)`); nil when the bytes end first.
        mutating func text(in bytes: [UInt8]) -> String?? {
            guard let length = number(in: bytes) else { return nil }
            guard length > 0 else { return .some(nil) }
            guard offset + length - 1 <= bytes.count else { return nil }
            defer { offset += length - 1 }
            return String(decoding: bytes[offset..<(offset + length - 1)], as: UTF8.self)
        }
    }
}
