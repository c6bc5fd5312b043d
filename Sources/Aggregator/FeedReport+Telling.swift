import FeedModel
import FeedParse

extension FeedReport {
    /// Why a fetched feed was read only in part (cut short, or not well-formed
    /// and recovered): its entries up to there are kept, and it is not simply
    /// ok. nil for a feed read whole, or not read this run.
    public var partialReason: String? {
        guard status == .ok else { return nil }
        return warnings.first(where: ParseWarning.isTruncation) ?? warnings.first(where: ParseWarning.isRecovery)
    }

    /// Whether a failure is said where lines are few (a cron run's `--quiet`,
    /// every worker): when the feed starts failing, and then once a day while
    /// it fails, on the first run of each day counted from when it began.
    public func failureIsToldAt(_ now: Timestamp) -> Bool {
        guard let since = failingBefore, let before = fetchedBefore else { return true }
        let day = { (time: Timestamp) in (time.secondsSince1970 - since.secondsSince1970).floorDivided(by: 86_400) }
        return day(now) > day(before)
    }

    /// The HTTP status that answered, for metrics and logs: none for a local file (its
    /// report carries 200 when it was read).
    public var answeredStatus: Int? {
        let url = subscription.url.lowercased()
        guard url.hasPrefix("http://") || url.hasPrefix("https://") else { return nil }
        return httpStatus
    }

    /// It failed before this run and works again.
    public var recovered: Bool { failingBefore != nil && (status == .ok || status == .notModified) }

    /// The outcome as metrics and logs name it: `fetched`, `partial`, `not_modified`, `failed`,
    /// `gone`; nil for a feed not asked (not due, waiting, or known gone).
    public var outcomeName: String? {
        switch status {
        case .ok: partialReason == nil ? "fetched" : "partial"
        case .notModified: "not_modified"
        case .failed: "failed"
        case .gone: goneBefore ? nil : "gone"
        case .deferred: nil
        }
    }
}
