import Foundation
import Telemetry
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The listener over a real socket on 127.0.0.1: `/metrics`, `/healthz` both ways, and what it refuses.
@Suite struct MetricsListenerTests {
    func get(_ url: String, method: String = "GET") async throws -> (status: Int, body: String, type: String?) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return (http.statusCode, String(decoding: data, as: UTF8.self), http.value(forHTTPHeaderField: "Content-Type"))
    }

    @Test func itServesMetricsAndTellsHealthAsItChanges() async throws {
        let registry = MetricRegistry.feedmerge(version: "9.9")
        registry.add(.claims, 4)
        let problem = LockedText()
        let listener = try MetricsListener(listening: "127.0.0.1:0", metrics: registry) { problem.value }
        #expect(listener.address.hasPrefix("127.0.0.1:") && !listener.address.hasSuffix(":0"))
        let base = "http://\(listener.address)"

        let metrics = try await get(base + "/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.type == "text/plain; version=0.0.4; charset=utf-8")
        #expect(metrics.body.contains("feedmerge_claims_total 4\n"))
        try await PromTool.check(metrics.body)

        #expect(try await get(base + "/healthz").status == 200)
        problem.value = "the state cannot be used for 61 s: gone"
        let unhealthy = try await get(base + "/healthz")
        #expect(unhealthy.status == 503)
        #expect(unhealthy.body == "unhealthy: the state cannot be used for 61 s: gone\n")
        problem.value = nil
        #expect(try await get(base + "/healthz").status == 200)

        #expect(try await get(base + "/nothing").status == 404)
        #expect(try await get(base + "/metrics", method: "POST").status == 405)
        #expect(try await get(base + "/metrics", method: "HEAD").status == 200)
    }

    @Test func anAddressItCannotListenOnIsAnError() throws {
        #expect(throws: MetricsListener.ListenerError.self) {
            _ = try MetricsListener(listening: "127.0.0.1", metrics: MetricRegistry()) { nil }
        }
        #expect(throws: MetricsListener.ListenerError.self) {
            _ = try MetricsListener(listening: "127.0.0.1:99999", metrics: MetricRegistry()) { nil }
        }
        let first = try MetricsListener(listening: "127.0.0.1:0", metrics: MetricRegistry()) { nil }
        #expect(throws: MetricsListener.ListenerError.self) {
            _ = try MetricsListener(listening: first.address, metrics: MetricRegistry()) { nil }
        }
    }
}

/// A health answer the test changes while the listener's thread reads it.
final class LockedText: @unchecked Sendable {
    // Unchecked: `text` is reached only under `lock`.
    private let lock = NSLock()
    private var text: String?
    var value: String? {
        get { lock.withLock { text } }
        set { lock.withLock { text = newValue } }
    }
}
