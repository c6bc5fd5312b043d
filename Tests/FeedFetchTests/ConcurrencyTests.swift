import FeedFetch
import Foundation
import Testing

@Suite(.serialized) struct ConcurrencyTests {
    let server = TestServer.shared

    func maximumSeenByServer() async throws -> Int {
        let response = try await HTTPClient().fetch(FetchRequest(url: server.url("/max-concurrency")))
        return Int(String(decoding: response.body, as: UTF8.self)) ?? -1
    }

    @Test func perHostLimitBoundsTransfersInFlight() async throws {
        _ = try await maximumSeenByServer()  // reset the server's count
        var configuration = FetchConfiguration()
        configuration.maximumTransfersPerHost = 2
        let client = HTTPClient(configuration: configuration)
        let url = server.url("/slow")
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<6 { group.addTask { try await client.fetch(FetchRequest(url: url)).status } }
            for try await status in group { #expect(status == 200) }
        }
        #expect(try await maximumSeenByServer() == 2)
    }

    /// One server on 127.0.0.1 under every spelling a URL can give it is one
    /// host: the limit holds across them (each had its own budget when the
    /// key was the URL's text).
    @Test func perHostLimitHoldsAcrossSpellingsOfOneHost() async throws {
        _ = try await maximumSeenByServer()
        var configuration = FetchConfiguration()
        configuration.maximumTransfersPerHost = 2
        let client = HTTPClient(configuration: configuration)
        let port = server.url("/").split(separator: ":").last?.prefix { $0.isNumber } ?? ""
        let spellings = ["localhost", "127.0.0.1", "127.1", "2130706433", "0x7f.1", "LOCALHOST"]
        let urls = spellings.flatMap { host in Array(repeating: "http://\(host):\(port)/slow", count: 2) }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for url in urls { group.addTask { try await client.fetch(FetchRequest(url: url)).status } }
            for try await status in group { #expect(status == 200) }
        }
        #expect(try await maximumSeenByServer() == 2)
    }

    @Test func globalLimitBoundsTransfersInFlight() async throws {
        _ = try await maximumSeenByServer()
        var configuration = FetchConfiguration()
        configuration.maximumConcurrentTransfers = 3
        configuration.maximumTransfersPerHost = 10
        let client = HTTPClient(configuration: configuration)
        let url = server.url("/slow")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<9 { group.addTask { _ = try await client.fetch(FetchRequest(url: url)) } }
            try await group.waitForAll()
        }
        #expect(try await maximumSeenByServer() == 3)
    }

    /// Cancelling the group mid-flight returns promptly, every child sees
    /// `cancelled`, and no transfer is left behind.
    @Test func cancellingTheGroupRemovesEveryTransfer() async throws {
        var configuration = FetchConfiguration()
        configuration.maximumConcurrentTransfers = 4  // some run, some wait in the queue
        let client = HTTPClient(configuration: configuration)
        let url = server.url("/hang")
        let start = Date()
        let codes = await withTaskGroup(of: FetchError.Code?.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    do {
                        _ = try await client.fetch(FetchRequest(url: url))
                        return nil
                    } catch {
                        return (error as? FetchError)?.code
                    }
                }
            }
            try? await Task.sleep(for: .milliseconds(300))
            group.cancelAll()
            var codes: [FetchError.Code?] = []
            for await code in group { codes.append(code) }
            return codes
        }
        // Without cancellation the transfers would hang until their 60 s timeout; a loaded
        // machine may take a few seconds to wind ten down, so the bound is loose.
        #expect(Date().timeIntervalSince(start) < 20)
        #expect(codes.count == 10)
        #expect(codes.allSatisfy { $0 == .cancelled })
        #expect(client.transfersInFlight == 0)
    }

    @Test func alreadyCancelledTaskDoesNotFetch() async throws {
        let client = HTTPClient()
        let url = server.url("/hang")
        let task = Task { () -> FetchError.Code? in
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                _ = try await client.fetch(FetchRequest(url: url))
                return nil
            } catch {
                return (error as? FetchError)?.code
            }
        }
        #expect(await task.value == .cancelled)
        #expect(client.transfersInFlight == 0)
    }
}
