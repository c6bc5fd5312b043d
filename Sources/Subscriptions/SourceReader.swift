import FeedFetch
import Foundation

/// Turns the sources of the command line into subscriptions: OPML files
/// and URLs are expanded, feed URLs and local feed files are taken as
/// they are. A URL counts as OPML when its path ends in `.opml`.
public enum SourceReader {
    public static func read(_ sources: [String], client: HTTPClient) async throws(SubscriptionError) -> SubscriptionList
    {
        var list = SubscriptionList()
        for source in sources {
            let isURL = source.hasPrefix("http://") || source.hasPrefix("https://")
            if isURL {
                let path = source.split(separator: "?").first.map(String.init) ?? source
                guard path.lowercased().hasSuffix(".opml") else {
                    list.add(Subscription(url: source))
                    continue
                }
                let response: FetchResponse
                do {
                    response = try await client.fetch(FetchRequest(url: source))
                } catch {
                    throw SubscriptionError(source: source, line: nil, message: "cannot fetch: \(error.message)")
                }
                try OPMLReader.read(response.body, source: source, into: &list)
                continue
            }
            let path = source.hasPrefix("file://") ? String(source.dropFirst(7)) : source
            guard let data = FileManager.default.contents(atPath: path) else {
                throw SubscriptionError(source: source, line: nil, message: "no such file, or not readable")
            }
            let bytes = [UInt8](data)
            if OPMLReader.isOPML(bytes) {
                try OPMLReader.read(bytes, source: source, into: &list)
            } else {
                list.add(Subscription(url: path))
            }
        }
        return list
    }
}
