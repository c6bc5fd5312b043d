import Basics
import FeedFetch
import Foundation
import Testing

/// A host asked only until a deadline (a shared state's lease): when it
/// passes, or the host is withdrawn, its running transfers are cancelled
/// and its waiting ones never start, each failing as `withdrawn`; other
/// hosts go on.
@Suite struct HostDeadlineTests {
    let server = TestServer.shared

    func codes(_ client: HTTPClient, _ urls: [String]) async -> [FetchError.Code?] {
        await withTaskGroup(of: FetchError.Code?.self) { group in
            for url in urls {
                group.addTask {
                    do {
                        _ = try await client.fetch(FetchRequest(url: url))
                        return nil
                    } catch {
                        return (error as? FetchError)?.code
                    }
                }
            }
            var codes: [FetchError.Code?] = []
            for await code in group { codes.append(code) }
            return codes
        }
    }

    @Test func aPassedDeadlineStopsTheHostsRunningAndWaitingTransfers() async {
        var configuration = FetchConfiguration()
        configuration.maximumTransfersPerHost = 2  // two run, two wait
        // No timeout ends them first, however slowly the suite runs (ThreadSanitizer, a busy pool):
        // each failing as withdrawn is what says the deadline stopped it.
        configuration.totalTimeoutSeconds = 3_600
        configuration.lowSpeedSeconds = 3_600
        let client = HTTPClient(configuration: configuration)
        let url = server.url("/hang")
        client.allow([URLAuthority.host(of: url)], until: .now + .milliseconds(500))
        let codes = await codes(client, Array(repeating: url, count: 4))
        #expect(codes == Array(repeating: .withdrawn, count: 4), "stopped at the deadline, not by a timeout")
        #expect(client.transfersInFlight == 0)
    }

    @Test func aWithdrawnHostIsAskedNoMoreAndOthersGoOn() async throws {
        let client = HTTPClient()
        let hanging = server.url("/hang")
        let host = URLAuthority.host(of: hanging)
        client.allow([host], until: .now + .seconds(600))
        let running = Task { await codes(client, [hanging]) }
        try await Task.sleep(for: .milliseconds(300))
        client.withdraw([host])
        #expect(await running.value == [.withdrawn])
        #expect(await codes(client, [server.url("/ok")]) == [.withdrawn], "the host, under any path")
        #expect(await codes(client, [server.secondURL("/ok")]) == [nil], "another host is asked")
        client.forget([host])
        #expect(await codes(client, [server.url("/ok")]) == [nil], "a host forgotten is asked freely")
    }
}
