import FeedFetch

extension MergeRun {
    /// Each output's public address, by path (`MergeOptions.publicURLs`).
    var publicURLs: [String: String] { options.publicURLs(kinds: destinations.map(\.kind)) }

    /// WebSub: each hub told of every output whose file this run changed, by its public
    /// address; a run that changed nothing tells no hub.
    /// - Returns: the pings that failed (warnings: the outputs stay written, the status is the run's).
    func tellHubs(_ changed: [String]) async -> [String] {
        guard !options.webSub.hubs.isEmpty else { return [] }
        let urls = publicURLs
        var feeds: [String] = []
        for path in changed {
            if let url = urls[path], !feeds.contains(url) { feeds.append(url) }
        }
        guard !feeds.isEmpty else { return [] }
        return await HubPing.tell(
            options.webSub.hubs, of: feeds, configuration: options.fetch, verbose: options.verbose)
    }
}
