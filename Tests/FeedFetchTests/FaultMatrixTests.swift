import FeedFetch
import Foundation
import TestSupport
import Testing

/// Each row of the fetch fault matrix against a real HTTP server on
/// 127.0.0.1: the client ends with the stated outcome, within its timeout,
/// with bounded memory.
@Suite struct FaultMatrixTests {
    let server = TestServer.shared

    static func client(_ adjust: (inout FetchConfiguration) -> Void = { _ in }) -> HTTPClient {
        var configuration = FetchConfiguration(userAgent: "feedmerge-tests")
        configuration.maximumBodyBytes = 1 << 20
        configuration.totalTimeoutSeconds = 10
        adjust(&configuration)
        return HTTPClient(configuration: configuration)
    }

    /// Fetches, timing it; returns the error or nil on success.
    /// The bound is three times the client's 10 s limit: the time measured here includes waiting
    /// for a thread of the shared cooperative pool, which the other suites of a loaded run can
    /// hold for seconds (13.8 s seen for failures that took milliseconds); a fetch that ignored
    /// its limit would still exceed it. Under a sanitizer the bound is `SanitizerRuntime.timeScale` times longer.
    func failure(_ path: String, client: HTTPClient = client(), within seconds: Double = 30) async -> FetchError? {
        let url = server.url(path)
        let start = Date()
        let bound = seconds * SanitizerRuntime.timeScale
        defer { #expect(Date().timeIntervalSince(start) < bound, "\(path) took too long") }
        do {
            _ = try await client.fetch(FetchRequest(url: url))
            return nil
        } catch {
            return error
        }
    }

    @Test func okBodyAndHeaders() async throws {
        let response = try await Self.client().fetch(FetchRequest(url: server.url("/ok")))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self).contains("<title>Served</title>"))
        #expect(response.headers.contentType == "application/rss+xml; charset=utf-8")
        #expect(response.headers.etag == "\"v1\"")
        #expect(response.headers.lastModified == "Tue, 10 Jun 2003 09:41:01 GMT")
        #expect(response.headers.cacheControl == "max-age=60")
        #expect(!response.redirected)
    }

    @Test func resetMidBodyFails() async {
        #expect(await failure("/reset")?.code == .transport)
    }

    @Test(arguments: ["/truncated-length", "/truncated-chunked"])
    func truncatedBodyFails(_ path: String) async {
        let error = await failure(path)
        #expect(error?.code == .transport, "\(path): \(String(describing: error))")
    }

    @Test(arguments: [500, 404, 410])
    func errorStatusFailsWithStatusKept(_ status: Int) async {
        let error = await failure("/status/\(status)")
        #expect(error?.code == .httpStatus)
        #expect(error?.status == status)
    }

    @Test func tooManyRequestsReportsRetryAfterSeconds() async {
        let error = await failure("/status/429")
        #expect(error?.status == 429)
        #expect(error?.retryAfterSeconds == 120)
    }

    /// The server sends its clock plus 300 s, to the second, and `retryAfterSeconds` counts down
    /// from the wall clock when it is read: the time this test waited (for a thread of a loaded
    /// pool, see `failure`) comes off the 300 s. A fixed 280...300 failed under ASan's full suite
    /// (274 s after a 26 s wait).
    @Test func serviceUnavailableReportsRetryAfterDate() async throws {
        let asked = time(nil)
        let error = try #require(await failure("/status/503"))
        #expect(error.status == 503)
        let seconds = try #require(error.retryAfterSeconds)
        let waited = Int(time(nil) - asked)
        #expect((300 - waited - 1...300).contains(seconds), "\(seconds) s after waiting \(waited) s")
    }

    @Test func permanentRedirectChain() async throws {
        let response = try await Self.client().fetch(FetchRequest(url: server.url("/redirect/301")))
        #expect(response.status == 200)
        #expect(response.finalURL == server.url("/ok"))
        #expect(response.redirected)
        #expect(response.permanentlyRedirected)
    }

    @Test func temporaryRedirectIsNotPermanent() async throws {
        let response = try await Self.client().fetch(FetchRequest(url: server.url("/redirect/302")))
        #expect(response.finalURL == server.url("/ok"))
        #expect(response.redirected)
        #expect(!response.permanentlyRedirected)
    }

    @Test func redirectLoopFails() async {
        #expect(await failure("/loop")?.code == .tooManyRedirects)
    }

    @Test(arguments: ["/to-file", "/to-gopher"])
    func redirectToOtherProtocolsIsRefused(_ path: String) async {
        #expect(await failure(path)?.code == .refusedProtocol)
    }

    @Test func directNonHTTPURLIsRefused() async {
        do {
            _ = try await Self.client().fetch(FetchRequest(url: "gopher://127.0.0.1/"))
            Issue.record("gopher was fetched")
        } catch {
            #expect(error.code == .refusedProtocol)
        }
    }

    // The bounds are loose on purpose (30 s for a 2 s limit): the suites run in parallel on a
    // shared machine and took 7.8 s here under load. They still tell a limit that works from
    // one that does not (the drip's total limit is 120 s; the silent server never answers).
    @Test func dripFeedTimesOut() async {
        let client = Self.client {
            $0.lowSpeedBytesPerSecond = 100
            $0.lowSpeedSeconds = 2
            $0.totalTimeoutSeconds = 120
        }
        #expect(await failure("/drip", client: client, within: 30)?.code == .timeout)
    }

    @Test func silentServerTimesOut() async {
        let client = Self.client { $0.totalTimeoutSeconds = 2 }
        #expect(await failure("/hang", client: client, within: 30)?.code == .timeout)
    }

    /// The bodies are 320 MB (chunked) and 256 MB (gzip, about 1 MB on the wire, built
    /// by the server on first request, hence the 60 s bound on the time): a cap
    /// that did not hold would grow the process by that much. The bound is 128 MB,
    /// not nearer the 1 MB cap, because the memory is the whole test process's
    /// and the other suites allocate meanwhile (64 MB was seen). Under a sanitizer
    /// the memory measured is the live heap (see `memoryInUseMegabytes`).
    @Test(arguments: ["/big-chunked", "/gzip-bomb"])
    func bodyOverTheCapFailsAtTheCap(_ path: String) async throws {
        let before = try memoryInUseMegabytes()
        let error = await failure(path, within: 60)
        #expect(error?.code == .tooLarge, "\(path): \(String(describing: error))")
        let grown = try memoryInUseMegabytes() - before
        #expect(grown < 128, "memory grew past the cap: \(grown) MB")
    }

    @Test func corruptGzipFails() async {
        #expect(await failure("/corrupt-gzip")?.code == .badEncoding)
    }

    @Test func conditionalRequestGetsNotModified() async throws {
        let client = Self.client()
        let first = try await client.fetch(FetchRequest(url: server.url("/conditional")))
        #expect(first.status == 200)
        let second = try await client.fetch(
            FetchRequest(
                url: server.url("/conditional"), etag: first.headers.etag, lastModified: first.headers.lastModified))
        #expect(second.isNotModified)
        #expect(second.body.isEmpty)
    }

    @Test(arguments: ["/gzip", "/br", "/zstd"])
    func encodedBodiesAreDecoded(_ path: String) async throws {
        let response = try await Self.client().fetch(FetchRequest(url: server.url(path)))
        #expect(String(decoding: response.body, as: UTF8.self).hasPrefix("<?xml"), "\(path)")
    }

    @Test func htmlPageIsASuccessAtThisStage() async throws {
        let response = try await Self.client().fetch(FetchRequest(url: server.url("/html")))
        #expect(response.headers.contentType?.hasPrefix("text/html") == true)
    }

    @Test func addressGuardRefusesLoopback() async {
        let client = Self.client { $0.addressPolicy = .publicOnly }
        #expect(await failure("/ok", client: client)?.code == .refusedAddress)
    }

    /// The first hop (127.0.0.2) is allowed by this policy, the redirect's
    /// target (127.0.0.1) is not: the guard sits where every connection is made.
    @Test func addressGuardRefusesARedirectToARefusedAddress() async throws {
        let policy = AddressPolicy(refusing: [try #require(AddressPolicy.Block("127.0.0.1/32"))])
        let client = Self.client { $0.addressPolicy = policy }
        let target = server.url("/ok").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        do {
            _ = try await client.fetch(FetchRequest(url: server.secondURL("/redirect-to?url=\(target)")))
            Issue.record("the redirect to a refused address was followed")
        } catch {
            #expect(error.code == .refusedAddress)
        }
        let direct = try await client.fetch(FetchRequest(url: server.secondURL("/ok")))
        #expect(direct.status == 200)
    }

    @Test func localFilesAreReadDirectly() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("feedmerge-local-\(getpid()).xml")
        try Data("<rss/>".utf8).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let client = Self.client()
        #expect(
            try await client.fetch(FetchRequest(url: path.path, mayReadLocalFile: true)).body == Array("<rss/>".utf8))
        #expect(
            try await client.fetch(FetchRequest(url: "file://\(path.path)", mayReadLocalFile: true)).body
                == Array("<rss/>".utf8))
        do {
            _ = try await client.fetch(FetchRequest(url: "/no/such/feed.xml", mayReadLocalFile: true))
            Issue.record("a missing file was read")
        } catch {
            #expect(error.code == .file)
        }
    }
}
