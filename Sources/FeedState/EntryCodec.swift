import FeedModel

/// A compact binary form of `Entry` for the state: a version byte, then the
/// fields in a fixed order, each string as a varint length and its UTF-8
/// bytes, each optional behind a presence byte. Several times faster than
/// JSON both ways, and smaller. A new field means a new version byte;
/// fields are only ever added at the end, so every older version still
/// decodes (2: enclosure durations, then `explicit`).
package enum EntryCodec {
    static let version: UInt8 = 2

    package static func encode(_ entry: Entry) -> [UInt8] {
        var out = Writer()
        out.bytes.reserveCapacity(
            256 + (entry.content.first?.value.utf8.count ?? 0) + (entry.summary?.value.utf8.count ?? 0))
        out.byte(version)
        out.string(entry.id)
        out.text(entry.title)
        out.string(entry.link)
        out.text(entry.summary)
        out.count(entry.content.count)
        for content in entry.content { out.text(content) }
        out.timestamp(entry.published)
        out.timestamp(entry.updated)
        out.people(entry.authors)
        out.people(entry.contributors)
        out.count(entry.enclosures.count)
        for enclosure in entry.enclosures {
            out.string(enclosure.url)
            out.integer(enclosure.length.map(Int64.init))
            out.string(enclosure.type)
        }
        out.categories(entry.categories)
        out.text(entry.rights)
        out.string(entry.comments)
        out.string(entry.language)
        out.string(entry.image)
        for enclosure in entry.enclosures { out.integer(enclosure.duration.map(Int64.init)) }
        out.flag(entry.explicit)
        return out.bytes
    }

    /// - Returns: nil when the bytes are not an entry of this version.
    package static func decode(_ bytes: [UInt8]) -> Entry? {
        var r = Reader(bytes: bytes)
        let stored = r.byte()
        guard stored >= 1, stored <= version else { return nil }
        var e = Entry()
        e.id = r.string()
        e.title = r.text()
        e.link = r.string()
        e.summary = r.text()
        e.content = (0..<r.count()).compactMap { _ in r.text() }
        e.published = r.timestamp()
        e.updated = r.timestamp()
        e.authors = r.people()
        e.contributors = r.people()
        e.enclosures = (0..<r.count()).map { _ in
            Enclosure(url: r.string() ?? "", length: r.integer().map { Int($0) }, type: r.string())
        }
        e.categories = r.categories()
        e.rights = r.text()
        e.comments = r.string()
        e.language = r.string()
        e.image = r.string()
        if stored >= 2 {
            for index in e.enclosures.indices { e.enclosures[index].duration = r.integer().map { Int($0) } }
            e.explicit = r.flag()
        }
        return r.failed ? nil : e
    }

    /// What names an entry and dates it (its id, link and own dates), the
    /// rest of its bytes walked as `decode` reads them but not decoded.
    /// - Returns: nil exactly when `decode` would fail, so that an entry is
    ///   known readable before it is decoded (if it ever is).
    static func skim(_ bytes: [UInt8]) -> (id: String?, link: String?, published: Timestamp?, updated: Timestamp?)? {
        var r = Reader(bytes: bytes)
        let stored = r.byte()
        guard stored >= 1, stored <= version else { return nil }
        let id = r.string()
        r.skipText()  // title
        let link = r.string()
        r.skipText()  // summary
        for _ in 0..<r.count() { r.skipText() }
        let published = r.timestamp()
        let updated = r.timestamp()
        for _ in 0..<2 { for _ in 0..<r.count() { r.skipStrings(3) } }  // authors, contributors
        let enclosures = r.count()
        for _ in 0..<enclosures {
            r.skipStrings(1)
            _ = r.integer()
            r.skipStrings(1)
        }
        for _ in 0..<r.count() { r.skipStrings(3) }  // categories
        r.skipText()  // rights
        r.skipStrings(3)  // comments, language, image
        if stored >= 2 {
            for _ in 0..<enclosures { _ = r.integer() }
            _ = r.flag()
        }
        return r.failed ? nil : (id, link, published, updated)
    }

    /// The codec's primitives, shared with `FeedMetadataCodec`, `StoredDates` and the stores' documents
    /// (`FeedEntries`).
    package struct Writer {
        package var bytes: [UInt8] = []

        package init() {}

        package mutating func byte(_ b: UInt8) { bytes.append(b) }

        package mutating func count(_ n: Int) { varint(UInt64(n)) }

        mutating func varint(_ value: UInt64) {
            var v = value
            while v >= 0x80 {
                bytes.append(UInt8(v & 0x7F) | 0x80)
                v >>= 7
            }
            bytes.append(UInt8(v))
        }

        package mutating func string(_ s: String?) {
            guard var s else { return byte(0) }
            byte(1)
            s.withUTF8 { utf8 in
                varint(UInt64(utf8.count))
                bytes.append(contentsOf: utf8)
            }
        }

        /// A length and the bytes.
        package mutating func blob(_ b: some Collection<UInt8>) {
            count(b.count)
            bytes.append(contentsOf: b)
        }

        mutating func text(_ t: Text?) {
            guard let t else { return byte(0) }
            byte(t.kind == .text ? 1 : t.kind == .html ? 2 : 3)
            string(t.value)
        }

        package mutating func integer(_ i: Int64?) {
            guard let i else { return byte(0) }
            byte(1)
            varint(UInt64(bitPattern: i))
        }

        mutating func timestamp(_ t: Timestamp?) { integer(t?.secondsSince1970) }

        /// nil, false, true as 0, 1, 2.
        mutating func flag(_ value: Bool?) { byte(value.map { $0 ? 2 : 1 } ?? 0) }

        mutating func categories(_ categories: [Category]) {
            count(categories.count)
            for category in categories {
                string(category.term)
                string(category.scheme)
                string(category.label)
            }
        }

        mutating func people(_ people: [Person]) {
            count(people.count)
            for p in people {
                string(p.name)
                string(p.email)
                string(p.uri)
            }
        }
    }

    package struct Reader {
        let bytes: [UInt8]
        package var index = 0
        package var failed = false

        package init(bytes: [UInt8]) { self.bytes = bytes }

        package mutating func byte() -> UInt8 {
            guard index < bytes.count else {
                failed = true
                return 0
            }
            defer { index += 1 }
            return bytes[index]
        }

        package mutating func varint() -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while shift < 64 {
                let b = byte()
                value |= UInt64(b & 0x7F) << shift
                if b & 0x80 == 0 || failed { return value }
                shift += 7
            }
            failed = true
            return 0
        }

        package mutating func count() -> Int {
            let n = varint()
            guard n <= UInt64(bytes.count) else {
                failed = true
                return 0
            }
            return Int(n)
        }

        package mutating func string() -> String? {
            guard byte() == 1 else { return nil }
            let n = count()
            guard !failed, index + n <= bytes.count else {
                failed = true
                return nil
            }
            defer { index += n }
            return String(decoding: bytes[index..<index + n], as: UTF8.self)
        }

        /// Past `count` strings (`string()`), none made.
        mutating func skipStrings(_ count: Int) {
            for _ in 0..<count {
                guard byte() == 1 else { continue }
                let n = self.count()
                guard !failed, index + n <= bytes.count else {
                    failed = true
                    return
                }
                index += n
            }
        }

        /// Past a text (`text()`), none made.
        mutating func skipText() {
            guard byte() != 0 else { return }
            skipStrings(1)
        }

        /// A length and the bytes (`Writer.blob`), sharing the read bytes' storage.
        package mutating func blobSlice() -> ArraySlice<UInt8> {
            let n = count()
            guard !failed, index + n <= bytes.count else {
                failed = true
                return []
            }
            defer { index += n }
            return bytes[index..<index + n]
        }

        mutating func text() -> Text? {
            let kind = byte()
            guard kind != 0 else { return nil }
            let value = string() ?? ""
            return Text(value, kind: kind == 1 ? .text : kind == 2 ? .html : .xhtml)
        }

        package mutating func integer() -> Int64? {
            guard byte() == 1 else { return nil }
            return Int64(bitPattern: varint())
        }

        mutating func timestamp() -> Timestamp? { integer().map { Timestamp(secondsSince1970: $0) } }

        mutating func flag() -> Bool? {
            switch byte() {
            case 1: return false
            case 2: return true
            default: return nil
            }
        }

        mutating func categories() -> [Category] {
            (0..<count()).map { _ in Category(term: string() ?? "", scheme: string(), label: string()) }
        }

        mutating func people() -> [Person] {
            (0..<count()).map { _ in Person(name: string(), email: string(), uri: string()) }
        }
    }
}
