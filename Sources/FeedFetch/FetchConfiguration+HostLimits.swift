import Basics

/// Each host's limits: the defaults, or a host's own (`hostOverrides`).
/// Hosts are the keys `URLAuthority.host(of:)` makes, the ones the per-host
/// limit counts; an override named without a port holds for every port of
/// its host, one named with a port for that port only (and wins there).
extension FetchConfiguration {
    /// Gives `host` (a name or address, with an optional port: `feeds.example.org`,
    /// `127.0.0.1:8080`) its own limits; a nil leaves that limit as it was.
    public mutating func override(
        host: String, maximumTransfers: Int? = nil, minimumSpacing: Duration? = nil
    ) {
        let key = URLAuthority.key(ofHost: host)
        var limits = hostOverrides[key] ?? HostLimits()
        if let maximumTransfers { limits.maximumTransfers = maximumTransfers }
        if let minimumSpacing { limits.minimumSpacing = minimumSpacing }
        hostOverrides[key] = limits
    }

    /// Transfers in flight at once to `host` (a canonical key).
    public func transfersAllowed(toHost host: String) -> Int {
        guard !hostOverrides.isEmpty else { return maximumTransfersPerHost }
        return limits(forHost: host)?.maximumTransfers ?? maximumTransfersPerHost
    }

    /// The least time between the starts of two transfers to `host` (a canonical key).
    public func spacing(forHost host: String) -> Duration {
        guard !hostOverrides.isEmpty else { return minimumHostSpacing }
        return limits(forHost: host)?.minimumSpacing ?? minimumHostSpacing
    }

    /// The most transfers any one host may have in flight: libcurl's own
    /// per-host cap is one number for all hosts, so it is set to this and
    /// the transfer loop holds each host to its own limit.
    public var largestTransfersPerHost: Int {
        hostOverrides.values.compactMap(\.maximumTransfers).reduce(maximumTransfersPerHost, max)
    }

    /// Whether the transfer loop follows redirects, each hop a transfer of
    /// its own waiting its turn (`TransferLoop.follow`): whenever a host has
    /// a spacing or a limit of its own. A redirect may lead to any host, and
    /// libcurl following it would skip that host's spacing and hold it only
    /// to libcurl's cap, which is the largest limit of all.
    public var followsRedirectsHopByHop: Bool {
        minimumHostSpacing > .zero || !hostOverrides.isEmpty
    }

    /// The override for `host`, by its key with its port, else by its name alone.
    private func limits(forHost host: String) -> HostLimits? {
        if let limits = hostOverrides[host] { return limits }
        let name = URLAuthority.withoutPort(host)
        return name.endIndex == host.endIndex ? nil : hostOverrides[String(name)]
    }
}
