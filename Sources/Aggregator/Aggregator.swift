import FeedFetch
import FeedModel
import FeedParse
import Foundation

/// How one subscription fared in a run.
public struct FeedReport: Sendable {
    public enum Status: Sendable, Equatable {
        case ok
        case notModified
        case failed(String)
    }

    public var subscription: Subscription
    public var status: Status
    /// Entries the feed had, and how many the timeline kept.
    public var entriesParsed: Int
    public var entriesKept: Int
    public var bytes: Int
    public var warnings: [String]
}

/// The pipeline: one task-group child per subscription fetches and parses;
/// the parent inserts each finished feed into the timeline as it arrives,
/// so memory holds what is kept, not every feed at once.
public enum Aggregator {
    public static func run(
        _ list: SubscriptionList, client: HTTPClient, rules: TimelineRules,
        progress: @Sendable (FeedReport, _ done: Int, _ total: Int) -> Void = { _, _, _ in }
    ) async -> (Timeline, [FeedReport]) {
        var timeline = Timeline(rules: rules)
        var reports = [FeedReport?](repeating: nil, count: list.subscriptions.count)
        // A sliding window of children: a new one starts when one finishes,
        // so fetched bodies never pile up waiting for a core to parse them.
        let window = max(2, client.configuration.maximumConcurrentTransfers)
        await withTaskGroup(of: (Int, Result<Fetched, FeedFailure>).self) { group in
            var next = 0
            func startNext() {
                guard next < list.subscriptions.count else { return }
                let index = next
                let subscription = list.subscriptions[index]
                group.addTask { (index, await fetchAndParse(subscription, client: client)) }
                next += 1
            }
            for _ in 0..<window { startNext() }
            var done = 0
            while let (index, outcome) = await group.next() {
                startNext()
                let subscription = list.subscriptions[index]
                let report: FeedReport
                switch outcome {
                case .success(let fetched):
                    let kept = timeline.insert(feed: fetched.feed, source: fetched.source, subscription: index)
                    report = FeedReport(
                        subscription: subscription, status: .ok, entriesParsed: fetched.feed.entries.count,
                        entriesKept: kept, bytes: fetched.bytes, warnings: fetched.feed.warnings)
                case .failure(let failure):
                    report = FeedReport(
                        subscription: subscription, status: .failed(failure.message), entriesParsed: 0,
                        entriesKept: 0, bytes: 0, warnings: [])
                }
                reports[index] = report
                done += 1
                progress(report, done, list.subscriptions.count)
            }
        }
        return (timeline, reports.compactMap { $0 })
    }

    struct Fetched: Sendable {
        var feed: ParsedFeed
        var source: FeedSource
        var bytes: Int
    }

    struct FeedFailure: Error, Sendable {
        var message: String
    }

    /// A local path as a `file://` URL (outputs carry absolute URLs only).
    static func absoluteURL(_ url: String) -> String {
        url.contains("://") ? url : URL(fileURLWithPath: url).absoluteString
    }

    /// Runs in a child task: both cores fetch and parse.
    static func fetchAndParse(_ subscription: Subscription, client: HTTPClient) async -> Result<Fetched, FeedFailure> {
        let response: FetchResponse
        do {
            response = try await client.fetch(FetchRequest(url: subscription.url))
        } catch {
            return .failure(FeedFailure(message: error.code == .httpStatus ? "HTTP \(error.status ?? 0)" : error.message))
        }
        let size = response.body.count
        let base = response.finalURL.contains("://") ? response.finalURL : nil
        let feed: ParsedFeed
        do {
            feed = try FeedParser.parse(
                response.body, options: .init(url: base, contentType: response.headers.contentType))
        } catch {
            return .failure(FeedFailure(message: error.message))
        }
        var source = FeedSource(
            title: feed.metadata.title?.value ?? subscription.title,
            link: feed.metadata.link ?? subscription.htmlURL,
            feedURL: response.permanentlyRedirected ? response.finalURL : absoluteURL(subscription.url),
            id: feed.metadata.id, updated: feed.metadata.updated ?? feed.metadata.published,
            folder: subscription.folder)
        if source.title?.isEmpty != false { source.title = subscription.title }
        var withFolder = feed
        if !subscription.folder.isEmpty {
            let folderCategory = Category(term: subscription.folder.joined(separator: "/"))
            for index in withFolder.entries.indices where !withFolder.entries[index].categories.contains(folderCategory) {
                withFolder.entries[index].categories.append(folderCategory)
            }
        }
        return .success(Fetched(feed: withFolder, source: source, bytes: size))
    }
}
