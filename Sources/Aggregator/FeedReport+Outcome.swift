import FeedState

extension FeedReport {
    /// How this run reports the feed, stored with its outcome (`feedmerge render` reports it so).
    var reportedOutcome: ReportedOutcome {
        ReportedOutcome(status: status.rawValue, entriesInFeed: entriesParsed, reason: reason ?? partialReason)
    }

    /// Served from the state (`feedmerge render`, or a feed another process
    /// holds): reported as the run that stored its last outcome reported it.
    mutating func take(_ stored: ReportedOutcome) {
        guard let status = Status(rawValue: stored.status) else { return }
        self.status = status
        goneBefore = status == .gone
        entriesParsed = stored.entriesInFeed
        reason = status == .ok ? nil : stored.reason
        if status == .ok, let partial = stored.reason { warnings.insert(partial, at: 0) }
    }
}
