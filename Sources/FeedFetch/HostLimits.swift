/// One host's own limits, where they differ from the defaults every other
/// host gets (`FetchConfiguration.maximumTransfersPerHost`,
/// `minimumHostSpacing`): for hosts the operator runs, so that raising
/// them there leaves every other host as politely treated as before.
public struct HostLimits: Sendable, Equatable {
    /// Transfers in flight at once to the host; nil: the default.
    public var maximumTransfers: Int?
    /// The least time between the starts of two transfers to the host; nil: the default.
    public var minimumSpacing: Duration?

    public init(maximumTransfers: Int? = nil, minimumSpacing: Duration? = nil) {
        self.maximumTransfers = maximumTransfers
        self.minimumSpacing = minimumSpacing
    }
}
