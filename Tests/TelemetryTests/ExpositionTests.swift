import Foundation
import Telemetry
import TestSupport
import Testing

/// The registry's text is Prometheus's exposition format: checked line by
/// line here, and by Prometheus's own `promtool check metrics`.
@Suite struct ExpositionTests {
    static let requests = MetricFamily(
        "test_requests_total", .counter, help: "Requests \\ with \"quotes\"\nand a line.")
    static let inFlight = MetricFamily("test_in_flight", .gauge, help: "In flight.")
    static let latency = MetricFamily("test_latency_seconds", .histogram, help: "Latency.", buckets: [0.1, 1])

    @Test func countersGaugesAndHistogramsAreWrittenAsPrometheusReadsThem() async throws {
        let registry = MetricRegistry([Self.requests, Self.inFlight, Self.latency])
        registry.add(Self.requests, labels: ["outcome": "ok", "code": "2xx"])
        registry.add(Self.requests, 2, labels: ["outcome": "a \"b\"\\c\nd", "code": "none"])
        registry.set(Self.inFlight, 3)
        registry.observe(Self.latency, 0.05)
        registry.observe(Self.latency, 0.5)
        registry.observe(Self.latency, 7)
        let text = registry.exposition()
        #expect(
            text == """
                # HELP test_requests_total Requests \\\\ with "quotes"\\nand a line.
                # TYPE test_requests_total counter
                test_requests_total{outcome="a \\"b\\"\\\\c\\nd",code="none"} 2
                test_requests_total{outcome="ok",code="2xx"} 1
                # HELP test_in_flight In flight.
                # TYPE test_in_flight gauge
                test_in_flight 3
                # HELP test_latency_seconds Latency.
                # TYPE test_latency_seconds histogram
                test_latency_seconds_bucket{le="0.1"} 1
                test_latency_seconds_bucket{le="1"} 2
                test_latency_seconds_bucket{le="+Inf"} 3
                test_latency_seconds_sum 7.55
                test_latency_seconds_count 3

                """)
        try await PromTool.check(text)
    }

    @Test func everyFeedmergeFamilyIsThereFromTheStartAndPassesPromtool() async throws {
        let registry = MetricRegistry.feedmerge(version: "1.2.3")
        registry.sampleProcess()
        let text = registry.exposition()
        for family in MetricFamily.feedmerge {
            #expect(text.contains("# TYPE \(family.name) \(family.kind)\n"))
        }
        #expect(text.contains("feedmerge_build_info{version=\"1.2.3\"} 1\n"))
        #expect(text.contains("feedmerge_claims_total 0\n"))
        let resident = try #require(
            text.split(separator: "\n").first { $0.hasPrefix("process_resident_memory_bytes ") })
        #expect((Double(resident.split(separator: " ")[1]) ?? 0) > 1_000_000)
        try await PromTool.check(text)
    }
}
