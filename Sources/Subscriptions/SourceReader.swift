import Basics
import FeedFetch
import Foundation

/// Turns the sources of the command line into subscriptions. A source is
/// read once and recognised by its content, wherever it comes from: an
/// OPML document is expanded into its outlines; anything else is a feed,
/// and what was read is handed to the run as that feed's fetch (it is not
/// fetched twice). `-` is standard input: an OPML document, a list of feed
/// URLs (one per line, `#` comments), or a feed.
///
/// A source the state already knows as a feed is not read here: the run
/// fetches it with its validators (conditional GET) and its Retry-After.
public enum SourceReader {
    /// What stands for standard input among the sources, and the path read for it.
    public static let standardInput = "-"
    static let standardInputPath = "/dev/stdin"

    /// - Parameter isKnownFeed: whether the state knows `url` as a feed.
    public static func read(
        _ sources: [String], client: HTTPClient, isKnownFeed: (String) -> Bool = { _ in false }
    ) async throws(SubscriptionError) -> SubscriptionList {
        // Read what must be read, all at once, then take the results in the order given.
        let toRead = sources.enumerated().filter { !isKnownFeed($0.element) || $0.element == standardInput }
        var results: [Int: Result<FetchResponse, FetchError>] = [:]
        await withTaskGroup(of: (Int, Result<FetchResponse, FetchError>).self) { group in
            for (index, source) in toRead {
                let url = source == standardInput ? standardInputPath : source
                group.addTask { (index, await read(url, client: client)) }
            }
            for await (index, result) in group { results[index] = result }
        }
        var list = SubscriptionList()
        for (index, source) in sources.enumerated() {
            guard let result = results[index] else {
                list.add(Subscription(url: source))
                continue
            }
            try add(source, read: result, to: &list)
        }
        return list
    }

    private static func read(_ url: String, client: HTTPClient) async -> Result<FetchResponse, FetchError> {
        do {
            return .success(try await client.fetch(FetchRequest(url: url)))
        } catch {
            return .failure(error)
        }
    }

    private static func add(
        _ source: String, read result: Result<FetchResponse, FetchError>, to list: inout SubscriptionList
    ) throws(SubscriptionError) {
        let isURL = source.hasPrefix("http://") || source.hasPrefix("https://")
        let named = source == standardInput ? "standard input" : source
        let response: FetchResponse
        switch result {
        case .success(let read):
            response = read
        case .failure(let error):
            // A URL that fails is a feed that failed (the run says so and goes on),
            // unless it was meant as a subscription list; a local file that cannot
            // be read is a mistake on the command line.
            let path = source.split(separator: "?").first.map(String.init) ?? source
            if isURL && !path.lowercased().hasSuffix(".opml") {
                list.add(Subscription(url: source), read: .failure(error))
                return
            }
            throw SubscriptionError(
                source: named, line: nil, message: isURL ? "cannot fetch: \(error.message)" : error.message)
        }
        if OPMLReader.isOPML(response.body) {
            try OPMLReader.read(
                response.body, source: named, into: &list,
                localFile: isURL || source == standardInput ? nil : localPath(source))
        } else if source == standardInput, let urls = urlList(response.body) {
            for url in urls { list.add(Subscription(url: url)) }
        } else if source == standardInput {
            list.add(Subscription(url: standardInputPath), read: .success(response))
        } else {
            list.add(Subscription(url: isURL ? source : localPath(source)), read: .success(response))
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
