import Basics
internal import CLibXML2
internal import CLibXSLT
import FeedModel
import Foundation
import TextOutput

/// The default theme's list of subscriptions, made a part at a time, so
/// that a page of a million feeds never holds its planet document whole:
/// - each part's items are made by the theme's own `planet:source`
///   template, from a document of that part alone
///   (`/feedmerge:subscriptions`), and written as the page writes them
///   (`HTMLResult`);
/// - each item is kept with its sort key: its `planet:name` as the page's
///   `xsl:sort` reads it (`translate` lowercases A to Z, and libxslt then
///   compares bytes), items of one key in the order they came;
/// - past `memoryLimit` bytes of items, they go to an unlinked temporary
///   file as one sorted run; `sorted()` gives what merges the runs as the
///   page is written. A file that cannot be written keeps them in memory.
///
/// What the page shows is the same as the theme's own sort of the whole
/// document (`SubscriptionListTests`). One value makes one list: a copy
/// shares its file.
public struct PageSubscriptions {
    private let theme: Theme
    /// The page's settings and time (`activity_threshold`: `markingInactiveSources`).
    private let settings: [String: String]
    private let generated: Timestamp
    private let memoryLimit: Int
    /// Items not yet in a run on file, and their bytes.
    private var items: [SortedSubscriptions.Item] = []
    private var held = 0
    private var runs: [SortedSubscriptions.Run] = []
    private var file: SpillFile?
    /// The items made so far.
    public private(set) var count = 0
    /// The temporary file's descriptor, once items went to it (tests cut it short).
    var spillDescriptor: Int32? { file?.descriptor }

    /// How many subscriptions one transformation lists.
    static let transformed = 2_000

    /// - Parameters:
    ///   - theme: the built-in theme (`Theme.builtIn`).
    ///   - settings, generated: the page's (a subscription's `activity_threshold` is judged at `generated`).
    ///   - memoryLimit: bytes of items held before they go to a file.
    public init(theme: Theme, settings: [String: String], generated: Timestamp, memoryLimit: Int = 16 << 20) {
        self.theme = theme
        self.settings = settings
        self.generated = generated
        self.memoryLimit = memoryLimit
    }

    /// Lists `sources` after those added before.
    public mutating func add(_ sources: [PlanetSource]) throws(PlanetPage.Failure) {
        var sources = sources
        PlanetPageInput.markInactive(&sources, settings: settings, generated: generated)
        var start = sources.startIndex
        while start < sources.endIndex {
            let end = min(start + Self.transformed, sources.endIndex)
            try make(sources[start..<end])
            start = end
        }
        if held > memoryLimit { spill() }
    }

    /// The list, ready to be written.
    public func sorted() -> SortedSubscriptions {
        let last = items.sorted(by: SortedSubscriptions.Item.precedes)
        return SortedSubscriptions(runs: runs, file: file, last: last)
    }

    /// The items of `sources`, made by one transformation.
    private mutating func make(_ sources: ArraySlice<PlanetSource>) throws(PlanetPage.Failure) {
        PageSetup.once()
        var document = TextBuffer(capacity: 1 << 16)
        PlanetDocument.render(subscriptions: sources, into: &document)
        var messages = CLibXSLT_Messages()
        let made: Result<[SortedSubscriptions.Item], PlanetPage.Failure> = withUnsafeMutablePointer(to: &messages) {
            messages in
            CLibXSLT_collectThreadMessages(messages)
            defer { CLibXSLT_silenceThread() }
            guard let source = PlanetPage.read(document) else {
                return .failure(PlanetPage.Failure(description: "the list of subscriptions cannot be read back"))
            }
            defer { xmlFreeDoc(source) }
            return PlanetPage.transform(source, theme: theme, parameters: [], messages: messages).flatMap { result in
                defer { xmlFreeDoc(result) }
                return items(of: source, listedIn: result, first: count)
            }
        }
        switch made {
        case .success(let made):
            for item in made { held += item.key.count + item.html.count + 64 }
            items += made
            count += made.count
        case .failure(let failure):
            let said = messages.length > 0 ? ": \(messages.summary)" : ""
            throw PlanetPage.Failure(description: "\(theme.name): the subscriptions: \(failure)\(said)")
        }
    }

    /// Each `planet:source` of `source` with the `li` the theme made of it, in order.
    private func items(of source: xmlDocPtr, listedIn result: xmlDocPtr, first: Int)
        -> Result<[SortedSubscriptions.Item], PlanetPage.Failure>
    {
        var keys: [[UInt8]] = []
        for element in Self.children(of: xmlDocGetRootElement(source)) where Self.isNamed(element, "source") {
            let name = Self.children(of: element).first { Self.isNamed($0, "name") }
            keys.append(name.map(Self.sortKey) ?? [])
        }
        var made: [SortedSubscriptions.Item] = []
        made.reserveCapacity(keys.count)
        for element in Self.children(of: xmlDocGetRootElement(result))
        where String(cString: element.pointee.name) == "li" && made.count < keys.count {
            var html = TextBuffer(capacity: 512)
            HTMLResult.write(element, into: &html)
            made.append(.init(key: keys[made.count], order: first + made.count, html: html.withBytes { Array($0) }))
        }
        guard made.count == keys.count else {
            return .failure(.init(description: "\(made.count) items for \(keys.count) subscriptions"))
        }
        return .success(made)
    }

    /// What the page's `xsl:sort` compares: the name's text, A to Z lowercased.
    private static func sortKey(_ name: xmlNodePtr) -> [UInt8] {
        guard let text = xmlNodeGetContent(name) else { return [] }
        defer { CLibXSLT_free(text) }
        var key = Array(UnsafeBufferPointer(start: text, count: strlen(text)))
        for index in key.indices where key[index] >= UInt8(ascii: "A") && key[index] <= UInt8(ascii: "Z") {
            key[index] += 0x20
        }
        return key
    }

    private static func children(of node: xmlNodePtr?) -> [xmlNodePtr] {
        var found: [xmlNodePtr] = []
        var child = node?.pointee.children
        while let current = child {
            if current.pointee.type == XML_ELEMENT_NODE { found.append(current) }
            child = current.pointee.next
        }
        return found
    }

    /// Whether `element` is `planet:NAME`.
    private static func isNamed(_ element: xmlNodePtr, _ name: String) -> Bool {
        guard let namespace = element.pointee.ns?.pointee.href else { return false }
        return String(cString: element.pointee.name) == name
            && String(cString: namespace) == PlanetDocument.planetNamespace
    }

    /// The items held go to the file as one sorted run (or stay, when it cannot be written).
    private mutating func spill() {
        if file == nil { file = SpillFile(prefix: "feedmerge-page") }
        guard let file else { return }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(held)
        for item in items.sorted(by: SortedSubscriptions.Item.precedes) { item.encode(into: &bytes) }
        guard let range = file.append(bytes) else { return }
        runs.append(.init(offset: range.lowerBound, length: range.count))
        items = []
        held = 0
    }
}

/// The default theme's list of subscriptions in the page's order
/// (`PageSubscriptions.sorted()`): its runs on file merged as it is written.
public struct SortedSubscriptions: Sendable {
    struct Item: Sendable {
        var key: [UInt8]
        /// Its place in the order the subscriptions came.
        var order: Int
        var html: [UInt8]

        static func precedes(_ a: Item, _ b: Item) -> Bool {
            a.key == b.key ? a.order < b.order : a.key.lexicographicallyPrecedes(b.key)
        }

        /// Key length, key, order, item length, item.
        func encode(into bytes: inout [UInt8]) {
            func number(_ value: Int) {
                withUnsafeBytes(of: UInt64(value).littleEndian) { bytes.append(contentsOf: $0) }
            }
            number(key.count)
            bytes += key
            number(order)
            number(html.count)
            bytes += html
        }
    }

    /// Sorted items in the file, from `offset`.
    struct Run: Sendable {
        var offset: Int
        var length: Int
    }

    let runs: [Run]
    let file: SpillFile?
    /// The items not in a file, sorted.
    let last: [Item]

    /// Every item, in order. A run that cannot be read back whole fails `out`
    /// (`TextBuffer.fail`): a page that lacks subscriptions is never written.
    public func write(into out: inout TextBuffer) {
        var readers = runs.map { RunReader(file: file!, run: $0) }
        var heads: [Item?] = readers.indices.map { readers[$0].next() }
        func unread() -> Bool {
            guard let failure = readers.lazy.compactMap(\.failure).first else { return false }
            out.fail("the list of subscriptions cannot be read back from its temporary file: \(failure)")
            return true
        }
        if unread() { return }
        var lastIndex = 0
        while true {
            // The least head; items of one key in the order they came (`order` across the runs).
            var least: Int?
            for index in heads.indices {
                guard let head = heads[index] else { continue }
                if least == nil || Item.precedes(head, heads[least!]!) { least = index }
            }
            if lastIndex < last.count, least == nil || Item.precedes(last[lastIndex], heads[least!]!) {
                out.append(bytes: last[lastIndex].html)
                lastIndex += 1
            } else if let least {
                out.append(bytes: heads[least]!.html)
                heads[least] = readers[least].next()
                if heads[least] == nil, unread() { return }
            } else {
                break
            }
            out.drainIfFull()
        }
    }

    /// The items of one run, read a buffer at a time.
    private struct RunReader {
        let file: SpillFile
        var position: Int
        let end: Int
        var buffer: [UInt8] = []
        var cursor = 0
        /// Why the run ended before its last item (nil: it did not).
        private(set) var failure: String?

        init(file: SpillFile, run: Run) {
            self.file = file
            position = run.offset
            end = run.offset + run.length
        }

        /// The next item; nil at the run's end, or with `failure` when it cannot be read.
        mutating func next() -> Item? {
            guard failure == nil, position < end || cursor < buffer.count else { return nil }
            guard let keyLength = number(), let key = bytes(keyLength), let order = number(),
                let htmlLength = number(), let html = bytes(htmlLength)
            else {
                if failure == nil { failure = "an item is cut short" }
                return nil
            }
            return Item(key: key, order: order, html: html)
        }

        private mutating func number() -> Int? {
            guard let bytes = bytes(8) else { return nil }
            return Int(bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) })
        }

        private mutating func bytes(_ count: Int) -> [UInt8]? {
            if buffer.count - cursor < count {
                let wanted = max(count - (buffer.count - cursor), 1 << 16)
                let read: [UInt8]
                switch file.read(at: position, count: Int(min(wanted, end - position))) {
                case .success(let bytes): read = bytes
                case .failure(let unreadable):
                    failure = unreadable.reason
                    return nil
                }
                position += read.count
                buffer = Array(buffer[cursor...]) + read
                cursor = 0
                guard buffer.count >= count else { return nil }
            }
            defer { cursor += count }
            return Array(buffer[cursor..<cursor + count])
        }
    }
}
