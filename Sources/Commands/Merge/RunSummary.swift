import Aggregator
import EntryFilters
import FeedModel
import FeedParse
import Foundation
import TimelineMerge

/// What a run tells its user on stderr, after the outputs are written:
/// the failures (with `--quiet`, a failing feed's once a day: `FeedReport.failureIsToldAt`),
/// recoveries and the state's diagnostics always; notices, unreadable dates and the summary line
/// unless `--quiet`; every warning and duplicate with `--verbose`.
struct RunSummary {
    /// The reports it names feeds from: every feed's, or (a render in parts) those it names one by one.
    var reports: [FeedReport]
    /// Every feed's report counted: the counts of a render.
    var tally: ReportTally
    /// What went wrong beyond any one feed (the state): always said.
    var diagnostics: [String]
    var duplicates: [Duplicate]
    var entries: Int
    var written: Int
    var outputs: Int
    var seconds: Double
    /// The run's time.
    var now: Timestamp
    /// `feedmerge render`: every feed came from the state.
    var rendered = false
    /// A render that could not read all it shows, and so wrote nothing (`MergeRun.writeNothing`).
    var unread = false
    /// The WebSub hubs that could not be told of a changed feed: always said, never a failed run.
    var hubFailures: [String] = []

    /// Each distinct state failure once, with the first feed it struck and how many more: a
    /// server gone mid-run fails every feed after it the same way, and says so in one line, not
    /// one per feed (the health report keeps each feed's).
    private func sayStateFailures() {
        var order: [String] = []
        var struck: [String: (first: String, count: Int)] = [:]
        for report in reports where report.stateFailed {
            for notice in report.notices where notice.hasPrefix("state:") {
                if let known = struck[notice] {
                    struck[notice] = (known.first, known.count + 1)
                } else {
                    order.append(notice)
                    struck[notice] = (report.subscription.url, 1)
                }
            }
        }
        for notice in order {
            let (first, count) = struck[notice]!
            say(count == 1 ? "\(first): \(notice)" : "\(first) and \(counted(count - 1, "more feed")): \(notice)")
        }
    }

    func print(quiet: Bool, verbose: Bool) {
        let failed = reports.filter(\.failed)
        for diagnostic in diagnostics { say(diagnostic) }
        for failure in hubFailures { say("warning: \(failure)") }
        // The state's failures are said even with `--quiet` (with `--verbose`, as each feed's notices).
        if !verbose { sayStateFailures() }
        for report in failed where !quiet || report.failureIsToldAt(now) {
            let since = report.failingBefore.map { " (failing since \(Self.day($0)))" } ?? ""
            // A challenge is a block, not a breakage: said as such (asked again in 4 h at the soonest).
            let word = FeedSchedule.isBlocked(report.reason) ? "blocked" : "failed"
            say("\(word): \(report.subscription.url): \(report.reason ?? report.status.rawValue)\(since)")
        }
        // A feed read in part is named with why, whatever its place in the summary's counts.
        if !quiet {
            for report in reports {
                guard let reason = report.partialReason else { continue }
                say("read in part: \(report.subscription.url): \(reason); the entries before that are kept")
            }
        }
        for report in reports where report.recovered {
            say("recovered: \(report.subscription.url) (failing since \(Self.day(report.failingBefore!)))")
        }
        if !verbose && !quiet {
            for report in reports {
                for notice in report.notices where !notice.hasPrefix("state:") {
                    say("\(report.subscription.url): \(notice)")
                }
            }
            // A filter that failed or was stopped left entries unfiltered: each feed says so.
            for report in reports {
                for warning in report.warnings where EntryFilters.isTrouble(warning) {
                    say("\(report.subscription.url): \(warning)")
                }
            }
            // An unreadable date is never silently "now": each feed that had some says so.
            for report in reports {
                let unreadable = report.warnings.filter(ParseWarning.isUnreadableDate)
                guard let first = unreadable.first else { continue }
                say(
                    "\(report.subscription.url): \(counted(unreadable.count, "unreadable date")) (\(first)); "
                        + "those entries count as undated (first seen, with a state; else the feed's date or the run's time)"
                )
            }
        }
        if verbose {
            for report in reports {
                for warning in report.warnings { say("\(report.subscription.url): \(warning)") }
            }
            for duplicate in duplicates {
                let place =
                    duplicate.feedURL == duplicate.otherFeedURL
                    ? "listed twice in \(duplicate.feedURL)" : "in \(duplicate.feedURL) and \(duplicate.otherFeedURL)"
                say("duplicate merged: \(duplicate.name) \(place)")
            }
        }
        if !quiet {
            // A feed read in part (cut short, or not well-formed and recovered) is not simply ok.
            let fetched = reports.filter { $0.status == .ok }
            let truncated = fetched.filter { $0.warnings.contains(where: ParseWarning.isTruncation) }.count
            let recovered = fetched.filter {
                !$0.warnings.contains(where: ParseWarning.isTruncation)
                    && $0.warnings.contains(where: ParseWarning.isRecovery)
            }.count
            let ok = fetched.count - truncated - recovered
            let partial =
                (truncated > 0 ? "\(truncated) truncated, " : "") + (recovered > 0 ? "\(recovered) recovered, " : "")
            let notModified = reports.filter { $0.status == .notModified }.count
            let stillFailing = reports.filter(\.stillFailing).count
            let deferred = reports.filter { $0.status == .deferred }.count - stillFailing
            let gone = reports.filter(\.goneBefore).count
            let waiting =
                (deferred > 0 ? ", \(deferred) not asked (not due, or asked to wait)" : "")
                + (stillFailing > 0 ? ", \(stillFailing) still failing (not asked until their backoff ends)" : "")
                + (gone > 0 ? ", \(gone) gone (410, not asked again)" : "")
            let feeds =
                rendered
                ? "\(counted(tally.feeds, "feed")) from the state (\(tally.failed) failing when last fetched); "
                : "\(counted(ok, "feed")) ok, \(partial)\(notModified) not modified\(waiting), \(failed.count) failed; "
            say(
                feeds
                    + "\(counted(entries, "entry", "entries")) written to \(written) of \(counted(outputs, "output")), "
                    + "\(counted(duplicates.count, "duplicate")) merged, in \(String(format: "%.1f", seconds)) s")
        }
        if unread {
            say("the state could not be read whole: nothing was written, the outputs and --health are as they were")
        } else if written < outputs && !tally.anyUsable {
            say("every feed failed; outputs left as they were")
        }
    }

    private static func day(_ date: Timestamp) -> String { String(date.rfc3339.prefix(10)) }

    private func say(_ text: String) { StandardOutput.error("feedmerge: " + text) }
}

/// `1 feed`, `2 feeds`.
func counted(_ number: Int, _ singular: String, _ plural: String? = nil) -> String {
    "\(number) " + (number == 1 ? singular : plural ?? singular + "s")
}
