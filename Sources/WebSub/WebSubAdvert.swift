/// What a fetched feed says of WebSub: the hubs that announce its changes and
/// its topic (the address it gives itself), as the W3C Recommendation's
/// discovery reads them (section 4): the `Link` header's `rel="hub"` and
/// `rel="self"` first, else the document's own links.
public struct WebSubAdvert: Sendable, Equatable {
    public var hubs: [String]
    public var topic: String

    public init(hubs: [String], topic: String) {
        self.hubs = hubs
        self.topic = topic
    }

    /// - Parameters:
    ///   - header: the targets of the `Link` header's `rel="hub"` and `rel="self"` links, absolute.
    ///   - document: the feed document's hub and self links, absolute.
    ///   - fetched: the address the feed was fetched from: the topic when none is named.
    /// - Returns: nil when no hub is named (or none by http(s)).
    public static func discover(
        header: (hubs: [String], own: String?), document: (hubs: [String], own: String?), fetched: String
    ) -> WebSubAdvert? {
        let chosen = header.hubs.isEmpty ? document : header
        let hubs = chosen.hubs.filter(Self.isWeb).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        guard !hubs.isEmpty else { return nil }
        let topic = [chosen.own, header.own, document.own].compactMap { $0 }.first(where: Self.isWeb) ?? fetched
        return WebSubAdvert(hubs: hubs, topic: topic)
    }

    static func isWeb(_ address: String) -> Bool {
        let lower = address.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }
}
