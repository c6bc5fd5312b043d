import Basics
import Foundation

/// The values of a process's metric families, changed from any thread and
/// written in Prometheus's text exposition format (version 0.0.4): each
/// family's `# HELP` and `# TYPE`, then its series sorted by their labels.
/// A family with no labels has its one series from the start (at 0), so an
/// alert on it never meets a missing series.
public final class MetricRegistry: Sendable {
    private struct Series: Sendable {
        var value = 0.0
        /// A histogram's: the count at or below each bucket's bound, the sum of what was observed.
        var bucketCounts: [Double] = []
        var sum = 0.0
    }

    private let families: [MetricFamily]
    private let series: Locked<[String: [String: Series]]>

    public init(_ families: [MetricFamily] = MetricFamily.feedmerge) {
        self.families = families
        var series: [String: [String: Series]] = [:]
        for family in families {
            series[family.name] = ["": Series(bucketCounts: Array(repeating: 0, count: family.buckets.count))]
        }
        self.series = Locked(series)
    }

    /// Adds to a counter (or a gauge).
    public func add(_ family: MetricFamily, _ amount: Double = 1, labels: KeyValuePairs<String, String> = [:]) {
        change(family, labels) { $0.value += amount }
    }

    public func set(_ family: MetricFamily, _ value: Double, labels: KeyValuePairs<String, String> = [:]) {
        change(family, labels) { $0.value = value }
    }

    /// One observation of a histogram.
    public func observe(_ family: MetricFamily, _ value: Double, labels: KeyValuePairs<String, String> = [:]) {
        change(family, labels) { series in
            for (index, bound) in family.buckets.enumerated() where value <= bound { series.bucketCounts[index] += 1 }
            series.sum += value
            series.value += 1
        }
    }

    /// The current value of a series (0 when it has none yet).
    public func value(_ family: MetricFamily, labels: KeyValuePairs<String, String> = [:]) -> Double {
        let key = Self.labelText(labels)
        return series.withLock { $0[family.name]?[key]?.value ?? 0 }
    }

    private func change(
        _ family: MetricFamily, _ labels: KeyValuePairs<String, String>, _ body: (inout Series) -> Void
    ) {
        let key = Self.labelText(labels)
        series.withLock { all in
            guard all[family.name] != nil else { return }
            var one = all[family.name]![key] ?? Series(bucketCounts: Array(repeating: 0, count: family.buckets.count))
            body(&one)
            all[family.name]![key] = one
            // A family with labels lists only the series it has seen, not the empty one.
            if !key.isEmpty, all[family.name]![""]?.value == 0, all[family.name]![""]?.sum == 0 {
                all[family.name]![""] = nil
            }
        }
    }

    /// The exposition: what `/metrics` serves and `--metrics FILE` holds.
    public func exposition() -> String {
        let snapshot = series.withLock { $0 }
        var text = ""
        for family in families {
            text += "# HELP \(family.name) \(Self.escapedHelp(family.help))\n# TYPE \(family.name) \(family.kind)\n"
            for (labels, one) in (snapshot[family.name] ?? [:]).sorted(by: { $0.key < $1.key }) {
                switch family.kind {
                case .counter, .gauge:
                    text += "\(family.name)\(braced(labels)) \(Self.number(one.value))\n"
                case .histogram:
                    for (index, bound) in family.buckets.enumerated() {
                        let le = "le=\"\(Self.number(bound))\""
                        text += "\(family.name)_bucket\(braced(labels, le)) \(Self.number(one.bucketCounts[index]))\n"
                    }
                    text += "\(family.name)_bucket\(braced(labels, "le=\"+Inf\"")) \(Self.number(one.value))\n"
                    text += "\(family.name)_sum\(braced(labels)) \(Self.number(one.sum))\n"
                    text += "\(family.name)_count\(braced(labels)) \(Self.number(one.value))\n"
                }
            }
        }
        return text
    }

    private func braced(_ labels: String, _ more: String = "") -> String {
        let all = [labels, more].filter { !$0.isEmpty }.joined(separator: ",")
        return all.isEmpty ? "" : "{\(all)}"
    }

    /// `a="1",b="x"`: names in the order given, values escaped.
    static func labelText(_ labels: KeyValuePairs<String, String>) -> String {
        labels.map { name, value in
            let escaped = value.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
            return "\(name)=\"\(escaped)\""
        }.joined(separator: ",")
    }

    static func escapedHelp(_ help: String) -> String {
        help.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }

    /// A whole number without a fraction; else Swift's shortest exact form.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
