import FeedFetch

/// Tells WebSub hubs that feeds changed. WebSub leaves the publisher's notice to each hub; the
/// common one, which PubSubHubbub's hubs, Superfeedr and Planet Venus use, is a form POSTed to
/// the hub: `hub.mode=publish` and the feed's address as `hub.url`. Hubs that read the address
/// as `hub.topic` (flask-websub's) get it under that name too. Each hub then fetches the feed
/// and sends it to its subscribers.
enum HubPing {
    /// One POST per hub and feed, all at once.
    /// - Parameters:
    ///   - configuration: the run's (its User-Agent and timeouts); the address guard is not
    ///     applied, the hubs being the operator's own choice.
    /// - Returns: a sentence for each hub that was not told, in the order given.
    static func tell(
        _ hubs: [String], of feeds: [String], configuration: FetchConfiguration, verbose: Bool
    ) async -> [String] {
        var configuration = configuration
        configuration.addressPolicy = .allowAll
        configuration.maximumBodyBytes = 64 << 10
        let client = HTTPClient(configuration: configuration)
        let pings = hubs.flatMap { hub in feeds.map { (hub: hub, feed: $0) } }
        return await withTaskGroup(of: (Int, String?).self) { group in
            for (index, ping) in pings.enumerated() {
                group.addTask {
                    var request = FetchRequest(url: ping.hub)
                    request.formBody = FetchRequest.form([
                        ("hub.mode", "publish"), ("hub.url", ping.feed), ("hub.topic", ping.feed),
                    ])
                    do throws(FetchError) {
                        let response = try await client.fetch(request)
                        if verbose {
                            StandardOutput.error(
                                "feedmerge: told \(ping.hub) of \(ping.feed) (HTTP \(response.status))")
                        }
                        return (index, nil)
                    } catch {
                        return (index, "the hub \(ping.hub) was not told of \(ping.feed): \(error.message)")
                    }
                }
            }
            var failures = [String?](repeating: nil, count: pings.count)
            for await (index, failure) in group { failures[index] = failure }
            return failures.compactMap { $0 }
        }
    }
}
