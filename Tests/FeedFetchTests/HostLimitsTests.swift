import Basics
import Foundation
import Testing

@testable import FeedFetch

/// A host with limits of its own (`FetchConfiguration.override(host:)`, the
/// command line's `--per-host HOST=N` and `--host-spacing HOST=S`) is asked
/// at them, and every other host at the defaults. Measured at the server:
/// the start and end of each request, on 127.0.0.1 (the owned host) and
/// 127.0.0.2 (any other).
@Suite struct HostLimitsTests {
    let server = TestServer.shared

    typealias Span = (start: Double, end: Double)

    /// The requests of `run` to `/timed` at the address of `logURL`, in the server's seconds.
    func spans(_ logURL: String) async throws -> [Span] {
        let response = try await HTTPClient().fetch(FetchRequest(url: logURL))
        return String(decoding: response.body, as: UTF8.self).split(separator: "\n").compactMap { line in
            let numbers = line.split(separator: " ").compactMap { Double($0) }
            return numbers.count == 2 ? (numbers[0], numbers[1]) : nil
        }.sorted { $0.start < $1.start }
    }

    /// The most requests the server was answering at once.
    func mostAtOnce(_ spans: [Span]) -> Int {
        spans.map { span in spans.filter { $0.start <= span.start && span.start < $0.end }.count }.max() ?? 0
    }

    /// Seconds between each start and the next.
    func gaps(_ spans: [Span]) -> [Double] {
        zip(spans.dropFirst(), spans).map { $0.start - $1.start }
    }

    func fetchAll(_ urls: [String], with client: HTTPClient) async throws {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for url in urls { group.addTask { try await client.fetch(FetchRequest(url: url)).status } }
            for try await status in group { #expect(status == 200) }
        }
    }

    /// The polite defaults (1 at a time, 1 s apart) with 127.0.0.1 raised to
    /// 4 at a time without a spacing: its four requests run together, while
    /// 127.0.0.2's three run one at a time, a second apart. Named by
    /// `localhost` (the same key), the override holds for every port of the
    /// host; named with the server's port, for that port.
    @Test(arguments: [false, true])
    func anOwnedHostIsAskedAtItsOwnLimitsAndTheOthersAtThePoliteOnes(namedWithPort: Bool) async throws {
        let run = UUID().uuidString
        let port = URLAuthority.parts(of: server.url("/"))?.port ?? ""
        var configuration = FetchConfiguration.polite(userAgent: "feedmerge-tests")
        configuration.override(
            host: namedWithPort ? "127.0.0.1:\(port)" : "localhost", maximumTransfers: 4, minimumSpacing: .zero)
        let client = HTTPClient(configuration: configuration)
        let owned = server.url("/timed?run=\(run)")
        let other = server.secondURL("/timed?run=\(run)")
        try await fetchAll(Array(repeating: owned, count: 4) + Array(repeating: other, count: 3), with: client)

        let ownedSpans = try await spans(server.url("/timed-log?run=\(run)"))
        let otherSpans = try await spans(server.secondURL("/timed-log?run=\(run)"))
        #expect(ownedSpans.count == 4 && otherSpans.count == 3)
        #expect(mostAtOnce(ownedSpans) == 4, "the owned host's limit: \(ownedSpans)")
        #expect(mostAtOnce(otherSpans) == 1, "the other host's: \(otherSpans)")
        #expect(gaps(otherSpans).allSatisfy { $0 >= 1.0 }, "the other host's spacing: \(gaps(otherSpans))")
    }

    /// Only the spacing lowered for the owned host: its requests still go
    /// one at a time, but back to back, while the other host's wait a second.
    @Test func anOwnedHostsSpacingAloneLeavesItsLimitAsItWas() async throws {
        let run = UUID().uuidString
        var configuration = FetchConfiguration.polite(userAgent: "feedmerge-tests")
        configuration.override(host: "127.0.0.1", minimumSpacing: .zero)
        let client = HTTPClient(configuration: configuration)
        let owned = server.url("/timed?run=\(run)")
        let other = server.secondURL("/timed?run=\(run)")
        try await fetchAll(Array(repeating: owned, count: 3) + Array(repeating: other, count: 2), with: client)

        let ownedSpans = try await spans(server.url("/timed-log?run=\(run)"))
        let otherSpans = try await spans(server.secondURL("/timed-log?run=\(run)"))
        #expect(ownedSpans.count == 3 && otherSpans.count == 2)
        #expect(mostAtOnce(ownedSpans) == 1 && mostAtOnce(otherSpans) == 1)
        #expect(gaps(ownedSpans).allSatisfy { $0 < 1.0 }, "the owned host is not spaced: \(gaps(ownedSpans))")
        #expect(gaps(otherSpans).allSatisfy { $0 >= 1.0 }, "the other host is: \(gaps(otherSpans))")
    }

    /// No spacing by default, one for 127.0.0.2: a redirect from 127.0.0.1
    /// to it is followed hop by hop, so the hop waits its spacing as a
    /// request of its own would (libcurl following would send it at once).
    @Test func aRedirectIntoASpacedHostKeepsItsSpacing() async throws {
        let run = UUID().uuidString
        var configuration = FetchConfiguration()
        configuration.override(host: "127.0.0.2", minimumSpacing: .seconds(1))
        #expect(configuration.followsRedirectsHopByHop)
        let client = HTTPClient(configuration: configuration)
        let spaced = server.secondURL("/timed?run=\(run)")
        let redirect = server.url(
            "/redirect-to?url=" + spaced.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        try await fetchAll([spaced, redirect], with: client)

        let spacedSpans = try await spans(server.secondURL("/timed-log?run=\(run)"))
        #expect(spacedSpans.count == 2)
        #expect(gaps(spacedSpans).allSatisfy { $0 >= 1.0 }, "the redirect's hop: \(gaps(spacedSpans))")
    }

    /// A process letting hosts go waits out each one's own spacing: a second
    /// for the host given one, none for the others (no spacing by default).
    @Test func lettingAHostGoWaitsItsOwnSpacing() async throws {
        var configuration = FetchConfiguration()
        configuration.override(host: "127.0.0.2", minimumSpacing: .seconds(1))
        let client = HTTPClient(configuration: configuration)
        let free = server.url("/ok")
        let spaced = server.secondURL("/ok")
        try await fetchAll([free, spaced], with: client)

        // Measured from each host's last start, not from when this task runs (a loaded pool may
        // run it after the second has passed).
        let freeHost = URLAuthority.host(of: free)
        let spacedHost = URLAuthority.host(of: spaced)
        let freeWait = await ContinuousClock().measure { await client.waitForSpacing(of: [freeHost]) }
        #expect(freeWait < .milliseconds(100), "\(freeWait)")
        await client.waitForSpacing(of: [spacedHost])
        let spacedLast = try #require(client.engine.lastStarts(of: [spacedHost]).first?.instant)
        #expect(ContinuousClock.now - spacedLast >= .seconds(1), "let go \(ContinuousClock.now - spacedLast) after")
    }
}
