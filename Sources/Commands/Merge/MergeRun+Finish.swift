import Aggregator
import FeedModel
import Foundation
import Subscriptions
import Telemetry

extension MergeRun {
    /// What the run wrote, for its exit status.
    struct Written {
        /// The outputs (`-o`) written.
        var outputs = 0
        var health = true
        var metrics = true
        var opml = true
        /// The outputs whose files this run changed, by path (what WebSub hubs are told of).
        var changed: [String] = []
    }

    /// The warnings of the lists and the filters: every one with `-v`; else
    /// the filter settings a remote list gave, once, and the filters' own.
    func tellWarnings(list: SubscriptionList, filters: FilterSetup) {
        if options.verbose {
            for warning in list.warnings { StandardOutput.error("feedmerge: \(warning)") }
        } else if !options.quiet {
            // Filter settings a list that is not a local file gave are left out: said once, the first named.
            let dropped = list.warnings.filter { $0.hasSuffix(OPMLReader.remoteFilterSettingDropped) }
            if let first = dropped.first {
                let more = dropped.count > 1 ? " (and \(dropped.count - 1) more such settings; -v lists them)" : ""
                StandardOutput.error("feedmerge: \(first)\(more)")
            }
        }
        if !options.quiet || options.warnWhenQuiet {
            for warning in pageFilterWarnings + filters.warnings { StandardOutput.error("feedmerge: \(warning)") }
        }
    }

    /// Step 5: each output written, or, when every feed failed and nothing
    /// is stored for them, each discarded.
    /// - Returns: how many were written, and the paths of those whose files changed.
    func writeOutputs(
        _ outputs: Outputs, entries: [MergedEntry], metadata: OutputMetadata, reports: [FeedReport],
        tally: ReportTally, list: SubscriptionList, excerptWidth: Int?, pages: PagesInParts.Made? = nil
    ) async -> (count: Int, changed: [String]) {
        // With a state, failing feeds still give their stored entries: write if anything is there.
        guard tally.anyUsable || !entries.isEmpty else {
            outputs.discardOutputs()
            return (0, [])
        }
        var content = outputContent(
            outputs: outputs.outputs, entries: entries, metadata: metadata, reports: reports, list: list, pages: pages)
        if let excerptWidth { content.page?.input.excerptLength = excerptWidth }
        content.selfURLs = publicURLs
        var written = 0
        var changed: [String] = []
        let results = await OutputWriter.write(outputs.outputs, content: content, verbose: options.verbose)
        for (output, result) in zip(outputs.outputs, results) {
            if let failure = result.failure {
                StandardOutput.error("feedmerge: \(failure)")
            } else {
                written += 1
                if result.changed { changed.append(output.path) }
            }
        }
        return (written, changed)
    }

    /// A run or a render that could not read all it shows (`Merged.unread`):
    /// the state is said to have failed, and every output and the health
    /// report are left as they were (a page of the feeds read before a
    /// server went away, or without the entries of the feeds that answered
    /// 304, would replace a whole one). `--metrics` is written: it is how a
    /// failed run is seen.
    func writeNothing(_ merged: consuming Merged, outputs: Outputs, metrics: MetricRegistry?, started: Date) async
        -> ExitStatus
    {
        await merged.state.session.finish()
        merged.health = nil  // its file as it was
        outputs.discardOutputs()
        outputs.health?.discard()
        let diagnostics = merged.result.diagnostics
        // (A failure to write it is said; the state's failure decides the status.)
        _ = writeMetrics(
            metrics, into: outputs.metrics, tally: merged.tally, diagnostics: diagnostics, started: started)
        var summary = RunSummary(
            reports: merged.result.reports, tally: merged.tally, diagnostics: diagnostics, duplicates: [], entries: 0,
            written: 0, outputs: outputs.outputs.count, seconds: Date().timeIntervalSince(started), now: rules.now)
        summary.rendered = options.renderOnly
        summary.unread = true
        summary.print(quiet: options.quiet, verbose: options.verbose)
        return .stateUnusable
    }

    /// `--health FILE`: every feed's health, and the run's diagnostics.
    /// - Returns: false when the file could not be written (said).
    func writeHealth(_ outputs: Outputs, merged: Merged, diagnostics: [String]) -> Bool {
        guard let health = outputs.health else { return true }
        do {
            if let writing = merged.health {  // a render in parts wrote its feeds already
                try writing.finish(diagnostics: diagnostics)
            } else {
                try HealthReport.write(
                    merged.result.reports, diagnostics: diagnostics, now: rules.now, keepDays: options.keepDays,
                    into: health)
            }
            return true
        } catch {
            StandardOutput.error("feedmerge: --health \(error)")
            return false
        }
    }

    /// A permanent redirect is said once, on the run that follows it (later runs ask the new
    /// address directly); with --update-opml, the rewrite's line says it.
    func tellMoves(_ reports: [FeedReport]) {
        guard !options.updateOPML && !options.quiet else { return }
        for report in reports {
            guard let to = report.movedTo else { continue }
            StandardOutput.error(
                "feedmerge: moved: \(report.subscription.url) -> \(to) (a permanent redirect, remembered: "
                    + "asked there from now on; --update-opml writes it into the list)")
        }
    }

    /// `--update-opml`: the moved feeds' addresses written into their lists.
    /// - Returns: false when a list could not be rewritten (said).
    func updateOPML(_ reports: [FeedReport]) -> Bool {
        guard options.updateOPML else { return true }
        let moved = reports.compactMap { report in report.movedTo.map { (report.subscription, $0) } }
        let rewrite = OPMLRewriter.apply(moved)
        for (file, count) in rewrite.updated.sorted(by: { $0.key < $1.key }) where !options.quiet {
            StandardOutput.error("feedmerge: \(file): \(counted(count, "moved feed")) updated")
        }
        for failure in rewrite.failures { StandardOutput.error("feedmerge: --update-opml: \(failure)") }
        return rewrite.failures.isEmpty
    }

    /// The run's exit status: what was not written first, then the state, then the feeds.
    func exitStatus(_ written: Written, outputs: Int, merged: Merged) -> ExitStatus {
        if written.outputs == 0 { return .nothingWritten }
        if written.outputs < outputs || !written.health || !written.metrics || !written.opml {
            return .someOutputsNotWritten
        }
        if !merged.result.diagnostics.isEmpty || merged.tally.anyStateFailed { return .stateUnusable }
        return merged.tally.failed == 0 && merged.listFailures.isEmpty ? .success : .someFeedsFailed
    }
}
