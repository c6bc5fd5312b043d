/// When each host with a spacing last had a transfer start, kept only while it says something:
/// an entry whose spacing has passed leaves its host free, the same as no entry, so it is
/// dropped once the map doubles (a run over 100,000 hosts keeps those of the last seconds).
struct RecentStarts {
    private(set) var instants: [String: ContinuousClock.Instant] = [:]
    /// The size that makes the next `note` drop the entries that passed.
    private var pruneAbove = 1_024

    subscript(host: String) -> ContinuousClock.Instant? { instants[host] }

    mutating func note(_ host: String, at instant: ContinuousClock.Instant, spacing: (String) -> Duration) {
        instants[host] = instant
        guard instants.count > pruneAbove else { return }
        instants = instants.filter { host, last in instant < last + spacing(host) }
        pruneAbove = max(1_024, instants.count * 2)
    }
}
