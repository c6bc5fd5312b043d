import Aggregator
import FeedModel
import TextOutput

/// The machine-readable health report (`--health FILE`), one object per feed.
enum HealthReport {
    /// A feed that answers but has published nothing for this long is "stale".
    static let staleDays: Int64 = 180

    /// - Parameter diagnostics: what went wrong beyond any one feed (the state).
    /// - Parameter keepDays: the retention the schedule's estimate counts entries over.
    static func render(
        _ reports: [FeedReport], diagnostics: [String] = [], now: Timestamp,
        keepDays: Int = StateOptions.defaultKeepDays
    ) -> [UInt8] {
        var json = JSONWriter()
        json.beginObject()
        json.field("generated", date: now)
        if !diagnostics.isEmpty {
            json.beginArray("diagnostics")
            for diagnostic in diagnostics { json.element(diagnostic) }
            json.endArray()
        }
        json.beginArray("feeds")
        for report in reports {
            json.beginObject()
            json.field("url", report.subscription.url)
            json.field("title", report.record?.title ?? report.subscription.title)
            json.field("status", status(of: report, now: now))
            json.field("http_status", report.httpStatus ?? report.record?.lastStatus)
            json.field("error", report.reason ?? report.partialReason)
            json.field("moved_to", report.record?.movedTo)
            json.field("last_fetch", date: report.record?.lastFetch)
            json.field("last_success", date: report.record?.lastSuccess)
            // When the schedule (FeedSchedule) next asks it, and why (a shared state: as scheduled
            // there); absent: never (gone), or not known yet.
            let check = report.record.flatMap { record in
                record.lastFetch == nil
                    ? nil
                    : FeedSchedule().check(
                        record: record, entriesStored: report.entriesStored ?? 0, keepDays: keepDays, now: now)
            }
            json.field("next_check", date: report.record?.nextCheck ?? check?.time)
            json.field("next_check_reason", check?.reason.rawValue)
            json.field("fetched_by", report.record?.fetchedBy)
            json.field("lease_holder", report.record?.leaseHolder)
            json.field("consecutive_failures", report.record?.consecutiveFailures)
            json.field("failing_since", date: report.record?.failingSince)
            json.field("last_error", report.record?.lastError)
            json.field("entries_stored", report.entriesStored)
            json.field("entries_in_feed", report.entriesParsed)
            json.field("newest_entry", date: report.newestEntry)
            if !report.notices.isEmpty {
                json.beginArray("notices")
                for notice in report.notices { json.element(notice) }
                json.endArray()
            }
            json.field(
                "days_since_last_entry",
                report.newestEntry.map { Int((now.secondsSince1970 - $0.secondsSince1970) / 86_400) })
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return json.bytes + [0x0A]
    }

    /// ok, partial (read in part: `error` says why), not-modified, deferred,
    /// failed, blocked (by bot protection), gone, or stale (answers, but
    /// nothing new for `staleDays`).
    static func status(of report: FeedReport, now: Timestamp) -> String {
        if report.partialReason != nil { return "partial" }
        // Blocked by bot protection: as long as it has failed so since (asked again or not).
        if report.status == .failed || report.status == .deferred, (report.record?.consecutiveFailures ?? 0) > 0,
            FeedSchedule.isBlocked(report.record?.lastError)
        {
            return "blocked"
        }
        if (report.status == .ok || report.status == .notModified), let newest = report.newestEntry,
            now.secondsSince1970 - newest.secondsSince1970 > staleDays * 86_400
        {
            return "stale"
        }
        return report.status.rawValue
    }
}
