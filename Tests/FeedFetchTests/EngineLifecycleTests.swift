import Basics
import Foundation
import TestSupport
import Testing

@testable import FeedFetch

/// The transfer engine's edges: shutting down, libcurl refusing a call, and
/// the peer address libcurl hands the open-socket callback.
@Suite struct EngineLifecycleTests {
    let server = TestServer.shared

    /// The default configuration, its transfer timeout scaled with `finished`'s wait under a
    /// sanitizer, so a fetch of `/hang` that merely timed out still ends after the wait.
    static var configuration: FetchConfiguration {
        var configuration = FetchConfiguration()
        configuration.totalTimeoutSeconds = Int(Double(configuration.totalTimeoutSeconds) * SanitizerRuntime.timeScale)
        return configuration
    }

    /// Whatever the fetch gave: its error, nil for a response.
    static func failure(of client: HTTPClient, _ url: String) async -> FetchError? {
        do {
            _ = try await client.fetch(FetchRequest(url: url))
            return nil
        } catch {
            return error
        }
    }

    @Test func fetchAfterShutDownFailsAtOnce() async throws {
        let client = HTTPClient()
        client.shutDown()
        let url = server.url("/ok")
        let outcome = await finished(within: 45) { await Self.failure(of: client, url) }
        let returned = try #require(outcome, "the fetch after shutDown never returned")
        let error = try #require(returned, "the fetch after shutDown succeeded")
        #expect(error.code == .cancelled)
        #expect(error.message.contains("shut down"))
        #expect(client.transfersInFlight == 0)
    }

    /// Running and waiting transfers all end as `cancelled`, and so does
    /// every fetch that comes after.
    @Test func shutDownWithTransfersInFlightResumesEveryCaller() async throws {
        var configuration = Self.configuration
        configuration.maximumConcurrentTransfers = 3  // some run, some wait
        // No timeout ends a hanging transfer first, however long a busy pool keeps this task from
        // shutting the client down (ThreadSanitizer's suite: over a minute): each ends by the shutdown.
        configuration.totalTimeoutSeconds = 3_600
        configuration.lowSpeedSeconds = 3_600
        let client = HTTPClient(configuration: configuration)
        let url = server.url("/hang")
        let outcome = await finished(within: 45) { () -> [FetchError.Code?] in
            await withTaskGroup(of: FetchError.Code?.self) { group in
                for _ in 0..<8 { group.addTask { await Self.failure(of: client, url)?.code } }
                while client.transfersInFlight < 8 { await Task.yield() }
                await pause(milliseconds: 200)  // let three of them connect
                client.shutDown()
                for _ in 0..<4 { group.addTask { await Self.failure(of: client, url)?.code } }
                var codes: [FetchError.Code?] = []
                for await code in group { codes.append(code) }
                return codes
            }
        }
        let codes = try #require(outcome, "a caller was never resumed")
        #expect(codes.count == 12)
        #expect(codes.allSatisfy { $0 == .cancelled }, "\(codes)")
        #expect(client.transfersInFlight == 0)
    }

    /// Shutting down while other tasks submit and cancel: every caller is
    /// resumed (a fetch racing the thread's stop hung before), and no wakeup
    /// reaches a freed multi handle.
    @Test func shutDownRacingSubmitAndCancel() async throws {
        let url = server.url("/hang")
        for round in 0..<20 {
            let client = HTTPClient(configuration: Self.configuration)
            let outcome = await finished(within: 45) { () -> Int in
                await withTaskGroup(of: FetchError.Code?.self) { group in
                    for _ in 0..<4 { group.addTask { await Self.failure(of: client, url)?.code } }
                    group.addTask {
                        await pause(milliseconds: round % 5)
                        client.shutDown()
                        // Submitted while the engine thread stops.
                        return await Self.failure(of: client, url)?.code
                    }
                    if round % 2 == 0 { group.cancelAll() }
                    for _ in 0..<4 { group.addTask { await Self.failure(of: client, url)?.code } }
                    var count = 0
                    for await code in group where code == .cancelled { count += 1 }
                    return count
                }
            }
            #expect(outcome == 9, "round \(round)")
            #expect(client.transfersInFlight == 0)
        }
    }

    /// libcurl refuses a negative connect timeout: the fetch fails with the
    /// option named (it ran with libcurl's default before).
    /// A cancellation that comes after its transfer finished (the task cancelled as the
    /// response arrived) is dropped: the thread holds none for a later turn.
    @Test func aCancellationAfterTheTransferFinishedIsNotKept() async throws {
        let engine = TransferEngine(configuration: Self.configuration)
        defer { engine.shutDown() }
        func fetch(_ path: String) async -> (UInt64, Result<FetchResponse, FetchError>) {
            let id = engine.makeID()
            let request = FetchRequest(url: server.url(path))
            let result = await withCheckedContinuation { continuation in
                engine.submit(.init(id: id, request: request, continuation: continuation))
            }
            return (id, result)
        }
        var finished: [UInt64] = []
        for _ in 0..<3 {
            let (id, result) = await fetch("/ok")
            #expect((try? result.get())?.status == 200)
            finished.append(id)
        }
        for id in finished { engine.cancel(id: id) }
        // Two more turns of the thread: it has taken the cancellations and said what it holds.
        _ = await fetch("/ok")
        _ = await fetch("/ok")
        #expect(engine.heldCancellations == 0)
        #expect(engine.transfersInFlight == 0)
    }

    /// A task cancelled before its submission arrived: the transfer ends as cancelled when it
    /// does arrive, and the cancellation is not kept after.
    @Test func aCancellationBeforeTheSubmissionStillCancels() async throws {
        let engine = TransferEngine(configuration: Self.configuration)
        defer { engine.shutDown() }
        let id = engine.makeID()
        engine.cancel(id: id)
        let request = FetchRequest(url: server.url("/ok"))
        let result = await withCheckedContinuation { continuation in
            engine.submit(.init(id: id, request: request, continuation: continuation))
        }
        guard case .failure(let error) = result else {
            Issue.record("a transfer cancelled before it was submitted ran")
            return
        }
        #expect(error.code == .cancelled)
        // One more turn of the thread, which then says what it holds.
        let next = engine.makeID()
        _ = await withCheckedContinuation { continuation in
            engine.submit(.init(id: next, request: request, continuation: continuation))
        }
        #expect(engine.heldCancellations == 0 && engine.transfersInFlight == 0)
    }

    @Test func refusedOptionIsNamedInTheError() async throws {
        var configuration = FetchConfiguration()
        configuration.connectTimeoutSeconds = -1
        let client = HTTPClient(configuration: configuration)
        let url = server.url("/ok")
        let outcome = await finished(within: 45) { await Self.failure(of: client, url) }
        let returned = try #require(outcome, "the fetch never returned")
        let error = try #require(returned, "the fetch succeeded")
        #expect(error.code == .curl)
        #expect(error.curlError?.call == "curl_easy_setopt(CURLOPT_CONNECTTIMEOUT)")
        #expect(error.message.contains("CURLOPT_CONNECTTIMEOUT"))
        #expect(error.curlError?.message.isEmpty == false)
        #expect(client.transfersInFlight == 0)
    }

    /// A URL longer than `maximumURLBytes` is refused before any transfer,
    /// as its own failure; the client goes on fetching the others.
    @Test func anOverlongURLIsRefusedBeforeAnyTransfer() async throws {
        let client = HTTPClient()
        let long = server.url("/ok?" + String(repeating: "a", count: HTTPClient.maximumURLBytes))
        let error = try #require(await Self.failure(of: client, long), "the fetch succeeded")
        #expect(error.code == .refusedURL && error.stage == .request)
        #expect(error.message.contains("bytes long"), "\(error.message)")
        let control = try #require(await Self.failure(of: client, server.url("/ok?a\u{0}b")))
        #expect(control.code == .refusedURL)
        #expect(try await client.fetch(FetchRequest(url: server.url("/ok"))).status == 200)
    }

    /// libcurl refuses a URL longer than 8 MB when it is set (handed to the
    /// engine directly: `fetch` refuses it first); the engine goes on
    /// fetching the others.
    @Test func refusedURLIsNamedAndTheEngineGoesOn() async throws {
        let client = HTTPClient()
        let long = server.url("/ok?" + String(repeating: "a", count: 8_000_001))
        let engine = client.engine
        let outcome = await finished(within: 45) { () async -> FetchError? in
            let result = await withCheckedContinuation { continuation in
                engine.submit(.init(id: engine.makeID(), request: FetchRequest(url: long), continuation: continuation))
            }
            if case .failure(let error) = result { return error }
            return nil
        }
        let returned = try #require(outcome, "the fetch never returned")
        let error = try #require(returned, "the fetch succeeded")
        #expect(error.code == .curl)
        #expect(error.curlError?.call == "curl_easy_setopt(CURLOPT_URL)")
        #expect(try await client.fetch(FetchRequest(url: server.url("/ok"))).status == 200)
    }

    // MARK: the open-socket callback's address reading

    static func peerAddress<Address>(_ address: Address, family: Int32, length: Int) -> Transfer.PeerAddress {
        withUnsafeBytes(of: address) { Transfer.peerAddress(family: family, length: length, at: $0.baseAddress!) }
    }

    @Test func ipv6AddressIsReadWhole() throws {
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        withUnsafeMutableBytes(of: &address.sin6_addr) { $0[15] = 1 }  // ::1
        let expected = [UInt8](repeating: 0, count: 15) + [1]
        #expect(Self.peerAddress(address, family: AF_INET6, length: MemoryLayout<sockaddr_in6>.size) == .ip(expected))
    }

    @Test func ipv4AddressIsRead() {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("10.1.2.3")
        #expect(
            Self.peerAddress(address, family: AF_INET, length: MemoryLayout<sockaddr_in>.size) == .ip([10, 1, 2, 3]))
    }

    /// An `addrlen` shorter than the family's structure is refused, not read past.
    @Test(arguments: [(AF_INET6, 16), (AF_INET6, 0), (AF_INET, 8)])
    func shortAddressIsRefused(family: Int32, length: Int) {
        let storage = sockaddr_storage()
        guard case .unreadable(let problem) = Self.peerAddress(storage, family: family, length: length) else {
            Issue.record("an address of \(length) bytes was read")
            return
        }
        #expect(problem.contains("\(length) bytes"))
    }

    @Test func otherFamiliesAreRefused() {
        let storage = sockaddr_storage()
        guard case .unreadable = Self.peerAddress(storage, family: AF_UNIX, length: 110) else {
            Issue.record("a Unix socket address passed the address guard")
            return
        }
    }
}

/// The body's value, or nil when it has not finished within `seconds`: a
/// continuation that is never resumed fails the test instead of hanging it
/// (the unfinished task is left behind).
/// The bounds are loose on purpose (45 s: under the 60 s transfer timeout, so
/// a transfer that merely timed out is not taken for a resumed one): the
/// bug they catch is a caller never resumed, and on a loaded 2-core machine
/// with other suites running, a few seconds can pass before a task starts.
/// Under a sanitizer the wait is `SanitizerRuntime.timeScale` times longer
/// (and so is the transfer timeout of the tests that fetch `/hang`).
/// The body and its child tasks run on a thread of their own (`ThreadExecutor`), so the
/// wait measures the engine, not how long other suites kept the cooperative pool busy.
func finished<T: Sendable>(within seconds: Double, _ body: @escaping @Sendable () async -> T) async -> T? {
    let slot = ContinuationSlot<T?>()
    return await withCheckedContinuation { continuation in
        slot.set(continuation)
        Task(executorPreference: ThreadExecutor.shared) { slot.resume(returning: await body()) }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds * SanitizerRuntime.timeScale) {
            slot.resume(returning: nil)
        }
    }
}

/// Sleeps; a cancelled task does not wait.
func pause(milliseconds: Int) async {
    do {
        try await Task.sleep(for: .milliseconds(milliseconds))
    } catch {
        // CancellationError, the only error Task.sleep throws: stop waiting.
    }
}

/// A continuation resumed by whichever comes first.
final class ContinuationSlot<T: Sendable>: Sendable {
    private let continuation = Locked<CheckedContinuation<T, Never>?>(nil)

    func set(_ value: CheckedContinuation<T, Never>) { continuation.withLock { $0 = value } }

    func resume(returning value: T) { continuation.withLock { $0.take() }?.resume(returning: value) }
}
