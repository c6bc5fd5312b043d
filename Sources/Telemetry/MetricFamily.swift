/// One metric family in Prometheus's sense: its name (by Prometheus's
/// conventions: a `feedmerge_` prefix, the unit spelled out, `_total` for a
/// counter), what it measures, its kind, and for a histogram its buckets'
/// upper bounds.
public struct MetricFamily: Sendable, Hashable {
    public enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    public let name: String
    public let help: String
    public let kind: Kind
    public let buckets: [Double]

    public init(_ name: String, _ kind: Kind, help: String, buckets: [Double] = []) {
        self.name = name
        self.kind = kind
        self.help = help
        self.buckets = buckets
    }
}

/// feedmerge's families: the same for a worker's `/metrics` and a one-shot
/// run's `--metrics FILE`, so that one dashboard and one set of alerts read both.
extension MetricFamily {
    public static let buildInfo = MetricFamily(
        "feedmerge_build_info", .gauge, help: "Always 1; the version is a label.")
    public static let processStart = MetricFamily(
        "process_start_time_seconds", .gauge, help: "When the process started, in seconds since the Unix epoch.")
    public static let residentMemory = MetricFamily(
        "process_resident_memory_bytes", .gauge, help: "Resident memory size in bytes.")
    public static let fetches = MetricFamily(
        "feedmerge_fetches_total", .counter,
        help: "Feeds asked for, by outcome and by the class of the HTTP status that answered (none: no HTTP answer).")
    public static let fetchedBytes = MetricFamily(
        "feedmerge_fetched_bytes_total", .counter, help: "Bytes of feed bodies received, decoded.")
    public static let entriesStored = MetricFamily(
        "feedmerge_entries_stored_total", .counter, help: "Entries of fetched feeds written to the state.")
    public static let outcomesNotStored = MetricFamily(
        "feedmerge_outcomes_not_stored_total", .counter,
        help: "Outcomes the state did not take (it failed, or the lease was lost).")
    public static let claims = MetricFamily(
        "feedmerge_claims_total", .counter, help: "Claims of hosts with due feeds that the state answered.")
    public static let claimDuration = MetricFamily(
        "feedmerge_claim_duration_seconds", .histogram, help: "How long the state took to answer a claim.",
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])
    public static let lastSuccessfulClaim = MetricFamily(
        "feedmerge_last_successful_claim_timestamp_seconds", .gauge,
        help: "When the state last answered a claim, in seconds since the Unix epoch.")
    public static let leasesHeld = MetricFamily(
        "feedmerge_leases_held", .gauge, help: "Host leases held now.")
    public static let leasesLost = MetricFamily(
        "feedmerge_leases_lost_total", .counter, help: "Host leases lost while held (another process holds the host).")
    public static let leaseRenewals = MetricFamily(
        "feedmerge_lease_renewals_total", .counter, help: "Renewals of the held host leases.")
    public static let dueFeeds = MetricFamily(
        "feedmerge_due_feeds", .gauge, help: "Feeds due now, whoever holds them (the backlog).")
    public static let stateErrors = MetricFamily(
        "feedmerge_state_errors_total", .counter, help: "Calls to the state that failed.")
    public static let stateUp = MetricFamily(
        "feedmerge_state_up", .gauge, help: "1 while the state can be used, 0 while it cannot.")
    public static let lastRun = MetricFamily(
        "feedmerge_last_run_timestamp_seconds", .gauge,
        help: "When the run ended, in seconds since the Unix epoch.")
    public static let runDuration = MetricFamily(
        "feedmerge_run_duration_seconds", .gauge, help: "How long the run took.")
    public static let runFailedFeeds = MetricFamily(
        "feedmerge_run_failed_feeds", .gauge, help: "Feeds that failed in the run.")

    /// Every family, in the order an exposition lists them.
    public static let feedmerge: [MetricFamily] = [
        buildInfo, processStart, residentMemory, fetches, fetchedBytes, entriesStored, outcomesNotStored, claims,
        claimDuration, lastSuccessfulClaim, leasesHeld, leasesLost, leaseRenewals, dueFeeds, stateErrors, stateUp,
        lastRun, runDuration, runFailedFeeds,
    ]
}
