import Foundation
import Testing

@testable import FeedFetch

/// A feed list names many hosts, often the same ones more than once, far
/// apart: a host's connection waits for its next transfer, however many
/// other hosts come between (libcurl's own cache holds four per transfer in
/// flight, and dropped a host's connection once that many others came).
@Suite struct ConnectionReuseTests {
    let server = TestServer.shared

    /// The connection each request came on, for requests to the two
    /// addresses in turn, one at a time.
    func connections(_ configuration: FetchConfiguration) async throws -> (first: Set<String>, second: Set<String>) {
        let client = HTTPClient(configuration: configuration)
        var first: Set<String> = []
        var second: Set<String> = []
        for _ in 0..<6 {
            let a = try await client.fetch(FetchRequest(url: server.url("/connection")))
            let b = try await client.fetch(FetchRequest(url: server.secondURL("/connection")))
            #expect(a.status == 200 && b.status == 200)
            first.insert(String(decoding: a.body, as: UTF8.self))
            second.insert(String(decoding: b.body, as: UTF8.self))
        }
        return (first, second)
    }

    @Test func eachHostKeepsItsConnectionWhateverComesBetween() async throws {
        var configuration = FetchConfiguration()
        configuration.maximumConcurrentTransfers = 1
        let kept = try await connections(configuration)
        #expect(kept.first.count == 1, "\(kept.first)")
        #expect(kept.second.count == 1, "\(kept.second)")
        // The same with room for one idle connection: the hosts drive out each other's.
        configuration.maximumIdleConnections = 1
        let dropped = try await connections(configuration)
        #expect(dropped.first.count + dropped.second.count > 6, "\(dropped)")
    }

    @Test func idleConnectionsFitTheOpenFileLimit() {
        #expect(OpenFileLimit.idleConnections(transfersInFlight: 32, openFiles: 1024) == 368)
        #expect(OpenFileLimit.idleConnections(transfersInFlight: 32, openFiles: 65536) == 1024)
        #expect(OpenFileLimit.idleConnections(transfersInFlight: 32, openFiles: 256) == 128)
        OpenFileLimit.raise()
        var limit = rlimit()
        #expect(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        #expect(Int(clamping: limit.rlim_cur) >= min(8192, Int(clamping: limit.rlim_max)))
    }
}
