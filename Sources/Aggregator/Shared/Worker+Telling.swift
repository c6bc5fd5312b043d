import FeedModel
import Telemetry

extension Worker {
    /// What a claim's feeds came to, told as it happens: each failing feed
    /// named with why when it starts failing and then once a day while it
    /// fails (the rule a quiet cron run keeps), each recovery, each feed read
    /// only in part; and counted for `/metrics`.
    func tell(_ reports: [FeedReport], now: Timestamp) {
        metrics.count(reports, stored: true)
        for report in reports {
            let url = report.subscription.url
            var fields: [(key: String, value: LogEvent.Value)] = [("url", .text(url))]
            if let status = report.answeredStatus { fields.append(("http_status", .integer(status))) }
            if report.failed, report.failureIsToldAt(now) {
                let reason = report.reason ?? report.status.rawValue
                let since = report.failingBefore.map { " (failing since \($0.rfc3339.prefix(10)))" } ?? ""
                fields.append(("reason", .text(reason)))
                log(LogEvent(.warning, "feed_failed", "failed: \(url): \(reason)\(since)", fields))
            } else if report.recovered, let since = report.failingBefore {
                log(
                    LogEvent(
                        .info, "feed_recovered", "recovered: \(url) (failing since \(since.rfc3339.prefix(10)))", fields
                    ))
            } else if let reason = report.partialReason {
                fields.append(("reason", .text(reason)))
                log(
                    LogEvent(
                        .warning, "feed_partial", "read in part: \(url): \(reason); the entries before that are kept",
                        fields))
            }
        }
    }
}
