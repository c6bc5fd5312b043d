import Aggregator
import FeedModel
import TextOutput

/// The machine-readable health report (`--health FILE`), one object per feed.
enum HealthReport {
    /// A feed that answers but has published nothing for this long is "stale".
    static let staleDays: Int64 = 180

    /// The report written into its file as the run goes: its head, then
    /// each feed's object as the run settles it (a render in parts lets its
    /// reports go once they are written), then the run's diagnostics.
    final class Writing {
        private let file: AtomicFile
        /// nil once finished.
        private var stream: AtomicFile.Stream?
        private let now: Timestamp
        /// The retention the schedule's estimate counts entries over.
        private let keepDays: Int
        private var feeds = 0

        init(into file: AtomicFile, now: Timestamp, keepDays: Int) throws(AtomicFile.WriteError) {
            self.file = file
            var stream = try file.stream()
            self.now = now
            self.keepDays = keepDays
            JSONWriter.writing(into: &stream.buffer) { json in
                json.beginObject()
                json.field("generated", date: now)
            }
            stream.buffer.append(",\"feeds\":[")
            self.stream = consume stream
        }

        func add(_ reports: some Sequence<FeedReport>) {
            guard var stream = stream.take() else { return }
            for report in reports {
                if feeds > 0 { stream.buffer.append(byte: UInt8(ascii: ",")) }
                feeds += 1
                JSONWriter.writing(into: &stream.buffer) { json in
                    HealthReport.write(report, into: &json, now: now, keepDays: keepDays)
                }
                stream.buffer.drainIfFull()
            }
            self.stream = consume stream
        }

        /// The diagnostics written last, and the file replaced.
        /// - Parameter diagnostics: what went wrong beyond any one feed (the state).
        func finish(diagnostics: [String]) throws(AtomicFile.WriteError) {
            guard var stream = stream.take() else { return }
            stream.buffer.append("]")
            if !diagnostics.isEmpty {
                stream.buffer.append(",\"diagnostics\":[")
                for (index, diagnostic) in diagnostics.enumerated() {
                    if index > 0 { stream.buffer.append(byte: UInt8(ascii: ",")) }
                    JSONWriter.writing(into: &stream.buffer) { json in json.element(diagnostic) }
                }
                stream.buffer.append("]")
            }
            stream.buffer.append("}\n")
            try file.finish(stream)
        }

        /// A run that ends before it writes its outputs leaves the file as it was.
        deinit {
            if let stream = stream.take() { file.discard(stream) }
        }
    }

    /// The whole report at once: `Writing` over `reports`.
    static func write(
        _ reports: [FeedReport], diagnostics: [String] = [], now: Timestamp,
        keepDays: Int = StateOptions.defaultKeepDays, into file: AtomicFile
    ) throws(AtomicFile.WriteError) {
        let writing = try Writing(into: file, now: now, keepDays: keepDays)
        writing.add(reports)
        try writing.finish(diagnostics: diagnostics)
    }

    /// One feed's object.
    private static func write(_ report: FeedReport, into json: inout JSONWriter, now: Timestamp, keepDays: Int) {
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
