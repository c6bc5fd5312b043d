import FeedModel

/// A feed's metadata in the state, in `EntryCodec`'s binary form: a version
/// byte, then every field of `FeedMetadata` in a fixed order. A new field
/// means a new version byte; the older versions stay readable (version 1
/// lacks the update hints, `ttl` and the Syndication module's interval;
/// version 2, RSS's `skipHours` and `skipDays`; version 3, RSS's
/// `lastBuildDate` apart; version 4, the feed's own address; version 5, its WebSub hubs).
public enum FeedMetadataCodec {
    static let version: UInt8 = 6

    public static func encode(_ metadata: FeedMetadata) -> [UInt8] {
        var out = EntryCodec.Writer()
        out.byte(version)
        out.text(metadata.title)
        out.text(metadata.subtitle)
        out.string(metadata.link)
        out.string(metadata.id)
        out.timestamp(metadata.updated)
        out.timestamp(metadata.published)
        out.text(metadata.rights)
        out.string(metadata.language)
        out.string(metadata.icon)
        out.string(metadata.logo)
        out.string(metadata.image)
        out.string(metadata.generator)
        out.people(metadata.authors)
        out.people(metadata.contributors)
        out.categories(metadata.categories)
        out.flag(metadata.explicit)
        out.integer(metadata.ttlMinutes.map(Int64.init))
        out.integer(metadata.updateInterval.map(Int64.init))
        // Each a bit mask: bit h for hour h, bit d for day d.
        out.integer(metadata.skipHours.reduce(Int64(0)) { $0 | Int64(1) << Int64($1) })
        out.integer(metadata.skipDays.reduce(Int64(0)) { $0 | Int64(1) << Int64($1) })
        out.timestamp(metadata.built)
        out.string(metadata.selfLink)
        out.integer(Int64(metadata.hubs.count))
        for hub in metadata.hubs { out.string(hub) }
        return out.bytes
    }

    /// - Returns: nil when the bytes are not metadata of this version.
    public static func decode(_ bytes: [UInt8]) -> FeedMetadata? {
        var r = EntryCodec.Reader(bytes: bytes)
        let stored = r.byte()
        guard (1...version).contains(stored) else { return nil }
        var m = FeedMetadata()
        m.title = r.text()
        m.subtitle = r.text()
        m.link = r.string()
        m.id = r.string()
        m.updated = r.timestamp()
        m.published = r.timestamp()
        m.rights = r.text()
        m.language = r.string()
        m.icon = r.string()
        m.logo = r.string()
        m.image = r.string()
        m.generator = r.string()
        m.authors = r.people()
        m.contributors = r.people()
        m.categories = r.categories()
        m.explicit = r.flag()
        if stored >= 2 {
            m.ttlMinutes = r.integer().map { Int($0) }
            m.updateInterval = r.integer().map { Int($0) }
        }
        if stored >= 3 {
            let hours = r.integer() ?? 0
            let days = r.integer() ?? 0
            m.skipHours = Set((0..<24).filter { hours & (Int64(1) << Int64($0)) != 0 })
            m.skipDays = Set((1...7).filter { days & (Int64(1) << Int64($0)) != 0 })
        }
        if stored >= 4 { m.built = r.timestamp() }
        if stored >= 5 { m.selfLink = r.string() }
        if stored >= 6 {
            let count = r.integer() ?? 0
            // Each hub is at least two bytes: a count beyond what is left is damage, not a list.
            guard count >= 0, count <= Int64(bytes.count) else { return nil }
            m.hubs = (0..<count).compactMap { _ in r.string() }
        }
        return r.failed ? nil : m
    }
}
