import Aggregator
import FeedModel
import Telemetry

/// What a run's reports come to, counted as they come: what the summary
/// line, the exit status, the outputs' metadata and `--metrics` need of
/// every feed. A render in parts counts each part's reports here and keeps
/// only those the summary names one by one (`names`), unless a page or the
/// OPML lists every feed.
struct ReportTally {
    private(set) var feeds = 0
    private(set) var failed = 0
    /// Some feed neither failed nor is still failing: the outputs are written.
    private(set) var anyUsable = false
    private(set) var anyStateFailed = false
    /// The state itself failed for some feed (not a damaged value of it: `FeedReport.stateUnusable`).
    private(set) var anyStateUnusable = false
    /// Some feed's stored entries could not be read because the state failed (`FeedReport.storedEntriesLeftOut`).
    private(set) var anyStoredEntriesLeftOut = false
    private(set) var notStored = 0
    private(set) var stateFailures = 0
    /// The newest update a feed's source says it had.
    private(set) var sourcesUpdated: Timestamp?
    /// `--metrics`: each feed's fetch counted into it (nil: not written).
    let metrics: MetricRegistry?
    /// The outcomes went into a state (their entries counted as stored).
    let stored: Bool

    init(metrics: MetricRegistry?, stored: Bool) {
        self.metrics = metrics
        self.stored = stored
    }

    mutating func add(_ reports: [FeedReport]) {
        for report in reports {
            feeds += 1
            if report.failed { failed += 1 }
            if !report.failed && !report.stillFailing { anyUsable = true }
            if report.stateFailed {
                anyStateFailed = true
                stateFailures += 1
            }
            if report.stateUnusable { anyStateUnusable = true }
            if report.storedEntriesLeftOut { anyStoredEntriesLeftOut = true }
            if report.notStored { notStored += 1 }
            if let updated = report.source?.updated { sourcesUpdated = max(sourcesUpdated ?? updated, updated) }
        }
        metrics?.count(reports, stored: stored)
    }

    /// Whether the summary names the feed of `report` on a line of its own
    /// (a failure, a feed read in part or recovered, a notice, a warning, a
    /// move): the reports a run in parts keeps.
    static func names(_ report: FeedReport) -> Bool {
        report.failed || report.stateFailed || report.recovered || report.partialReason != nil
            || !report.notices.isEmpty || !report.warnings.isEmpty || report.movedTo != nil
    }
}
