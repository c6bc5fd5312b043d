import Aggregator
import Foundation
import Telemetry
import TextOutput

extension MergeRun {
    /// `--metrics FILE`: the run's metrics, the same families a worker serves, written
    /// atomically (node_exporter's textfile collector reads it whole or not at all).
    /// - Parameters:
    ///   - stored: the outcomes went into a state (its entries counted as stored).
    ///   - started: when the run started.
    /// - Returns: false when the file could not be written (said).
    func writeMetrics(
        _ file: AtomicFile?, reports: [FeedReport], diagnostics: [String], stored: Bool, started: Date
    ) -> Bool {
        guard let file else { return true }
        let metrics = MetricRegistry.feedmerge(version: feedmergeVersion, started: started)
        metrics.count(reports, stored: stored)
        let stateErrors = diagnostics.count + reports.filter(\.stateFailed).count
        metrics.add(.stateErrors, Double(stateErrors))
        metrics.set(.stateUp, stateErrors == 0 ? 1 : 0)
        metrics.add(.outcomesNotStored, Double(stored ? reports.filter(\.notStored).count : 0))
        metrics.set(.lastRun, Date().timeIntervalSince1970)
        metrics.set(.runDuration, Date().timeIntervalSince(started))
        metrics.set(.runFailedFeeds, Double(reports.filter(\.failed).count))
        metrics.sampleProcess()
        do {
            try file.commit(bytes: Array(metrics.exposition().utf8))
            return true
        } catch {
            StandardOutput.error("feedmerge: --metrics \(error)")
            return false
        }
    }
}
