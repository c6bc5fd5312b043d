import Aggregator
import Foundation
import Telemetry
import TextOutput

extension MergeRun {
    /// `--metrics FILE`: the run's metrics, the same families a worker serves, written
    /// atomically (node_exporter's textfile collector reads it whole or not at all).
    /// - Parameters:
    ///   - metrics: the run's registry, each feed's fetch counted in it (`ReportTally`).
    ///   - started: when the run started.
    /// - Returns: false when the file could not be written (said).
    func writeMetrics(
        _ metrics: MetricRegistry?, into file: AtomicFile?, tally: ReportTally, diagnostics: [String], started: Date
    ) -> Bool {
        guard let file, let metrics else { return true }
        let stateErrors = diagnostics.count + tally.stateFailures
        metrics.add(.stateErrors, Double(stateErrors))
        metrics.set(.stateUp, stateErrors == 0 ? 1 : 0)
        metrics.add(.outcomesNotStored, Double(tally.stored ? tally.notStored : 0))
        metrics.set(.lastRun, Date().timeIntervalSince1970)
        metrics.set(.runDuration, Date().timeIntervalSince(started))
        metrics.set(.runFailedFeeds, Double(tally.failed))
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
