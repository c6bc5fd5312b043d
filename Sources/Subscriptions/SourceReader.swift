import Basics
import FeedFetch
import Foundation

/// Turns the sources of the command line into subscriptions, recognising
/// each by its content wherever it comes from:
///
/// - a source named `.opml` (a file, or a URL whose path ends so) is read
///   now as a subscription list: one that cannot be read stops the run;
/// - `-` is standard input, read now: an OPML document, a list of feed URLs
///   (one per line, `#` comments), or a feed (handed to the run as read);
/// - any other source is taken as a feed and fetched by the run like every
///   feed (conditional GET, politeness); when what arrives is an OPML
///   document, the run expands it then (`Subscription.mayBeList`). No
///   source is read twice, and none is held in memory before its turn.
public enum SourceReader {
    /// What stands for standard input among the sources, and the path read for it.
    public static let standardInput = "-"
    static let standardInputPath = "/dev/stdin"

    /// - Parameter configured: subscriptions given whole (a Venus
    ///   configuration's sections), listed before the sources' feeds.
    public static func read(_ sources: [String], configured: [Subscription] = [], client: HTTPClient)
        async throws(SubscriptionError) -> SubscriptionList
    {
        var list = SubscriptionList()
        try await read(sources, configured: configured, client: client, into: &list)
        return list
    }

    /// The same, into a list of any kind (a worker packs a long one: `PackedSubscriptions`).
    public static func read(
        _ sources: [String], configured: [Subscription] = [], client: HTTPClient,
        into list: inout some SubscriptionCollection
    ) async throws(SubscriptionError) {
        for subscription in configured { list.add(subscription) }
        for source in sources {
            let isURL = source.hasPrefix("http://") || source.hasPrefix("https://")
            let path = source.split(separator: "?").first.map(String.init) ?? source
            if source == standardInput {
                try await readStandardInput(into: &list, client: client)
            } else if path.lowercased().hasSuffix(".opml") {
                let response: FetchResponse
                do {
                    // Named by the operator: a local path is theirs to name.
                    response = try await client.fetch(FetchRequest(url: source, mayReadLocalFile: true))
                } catch {
                    // A list is read within the feeds' limit: the operator who gives a longer one raises it.
                    let hint = error.code == .tooLarge ? " (a longer list needs a larger --max-bytes)" : ""
                    throw SubscriptionError(
                        source: source, line: nil,
                        message: (isURL ? "cannot fetch: \(error.message)" : error.message) + hint)
                }
                let isLocal = LocalFile.path(of: source) != nil
                try list.add(
                    opml: response.body, source: source, localFile: isLocal ? localPath(source) : nil,
                    namesLocalFiles: isLocal)
            } else {
                var subscription = Subscription(url: isURL ? source : localPath(source))
                subscription.mayBeList = true
                subscription.mayReadLocalFile = true
                list.add(subscription)
            }
        }
    }

    private static func readStandardInput(into list: inout some SubscriptionCollection, client: HTTPClient)
        async throws(SubscriptionError)
    {
        let body: [UInt8]
        do {
            body = try LocalFile.standardInput(limit: client.configuration.maximumBodyBytes)
        } catch {
            throw SubscriptionError(source: "standard input", line: nil, message: error.description)
        }
        // A list on standard input often comes from elsewhere (`curl … | feedmerge -`): like a
        // fetched list, it names web feeds only.
        if OPMLReader.isOPML(body) {
            try list.add(opml: body, source: "standard input", localFile: nil, namesLocalFiles: false)
        } else if let urls = urlList(body) {
            for url in urls { list.add(Subscription(url: url)) }
        } else {
            list.add(Subscription(url: standardInputPath), read: LocalFile.response(body: body, url: standardInputPath))
        }
    }

    /// A `file://` URL's path; a path as it is.
    private static func localPath(_ source: String) -> String {
        LocalFile.path(of: source) ?? source
    }

    /// The URLs of a plain list (one per line; blank lines and `#` comments
    /// skipped); nil when any other line is there.
    static func urlList(_ bytes: [UInt8]) -> [String]? {
        var urls: [String] = []
        for line in String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let text = line.trimmingWhitespace
            if text.isEmpty || text.hasPrefix("#") { continue }
            guard text.hasPrefix("http://") || text.hasPrefix("https://"), !text.contains(where: \.isWhitespace)
            else { return nil }
            urls.append(text)
        }
        return urls.isEmpty ? nil : urls
    }
}
