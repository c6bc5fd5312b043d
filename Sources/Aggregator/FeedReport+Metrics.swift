import Telemetry

extension MetricRegistry {
    /// Counts what a run's feeds came to: each feed asked by its outcome and
    /// the class of the status that answered, the bytes received, and (where
    /// the outcomes went into a state) the entries of the fetched feeds stored.
    public func count(_ reports: [FeedReport], stored: Bool) {
        for report in reports {
            guard let outcome = report.outcomeName else { continue }
            let code = report.answeredStatus.map { "\($0 / 100)xx" } ?? "none"
            add(.fetches, labels: ["outcome": outcome, "code": code])
            add(.fetchedBytes, Double(report.bytes))
            if stored, report.status == .ok, !report.notStored {
                add(.entriesStored, Double(report.entriesParsed))
            }
        }
    }
}
