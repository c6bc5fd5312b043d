import Basics
import Foundation

/// Fetches feeds: `http`/`https` through libcurl (see `TransferEngine`),
/// `file://` URLs and local paths straight from the disk when the request
/// says the operator named them (`FetchRequest.mayReadLocalFile`).
///
/// Callers are task-group children: `fetch` suspends, never blocks, and
/// cancelling the task removes its transfer.
public final class HTTPClient: Sendable {
    public let configuration: FetchConfiguration
    /// (Not private: a test hands the engine a URL `fetch` would refuse, to reach libcurl's own refusal.)
    let engine: TransferEngine

    public init(configuration: FetchConfiguration = FetchConfiguration()) {
        self.configuration = configuration
        engine = TransferEngine(configuration: configuration)
    }

    deinit { engine.shutDown() }

    /// Cancels every transfer in flight; later fetches over http(s) fail at once as `cancelled`.
    func shutDown() { engine.shutDown() }

    /// Transfers submitted and not yet finished.
    public var transfersInFlight: Int { engine.transfersInFlight }

    /// - Throws: `FetchError`; a 304 is a response (`isNotModified`), not an error.
    public func fetch(_ request: FetchRequest) async throws(FetchError) -> FetchResponse {
        if let path = LocalFile.path(of: request.url) {
            guard request.mayReadLocalFile else {
                // Said the same way whether or not the path exists: nothing about the disk leaks.
                throw FetchError(
                    code: .refusedLocalFile, url: request.url, stage: .request,
                    message: LocalFile.refusal)
            }
            return try LocalFile.read(path, url: request.url, limit: configuration.maximumBodyBytes)
        }
        if let refusal = Self.refusal(ofURL: request.url) {
            throw FetchError(code: .refusedURL, url: request.url, stage: .request, message: refusal)
        }
        let scheme = request.url.prefix { $0 != ":" }.lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw FetchError(
                code: .refusedProtocol, url: request.url, stage: .request,
                message: "only http and https are fetched, not \(scheme):")
        }
        if let host = Self.host(of: request.url), let refusal = configuration.addressPolicy.refusal(forHost: host) {
            throw FetchError(code: .refusedAddress, url: request.url, stage: .request, message: refusal)
        }
        let engine = self.engine
        let id = engine.makeID()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                engine.submit(.init(id: id, request: request, continuation: continuation))
            }
        } onCancel: {
            engine.cancel(id: id)
        }
        return try result.get()
    }

    /// The longest URL fetched, in bytes: what common servers accept in a
    /// request line (Apache's 8,190, nginx's 8 KiB buffers); a feed's address
    /// is far shorter. A longer one fails as its own feed, said in the same
    /// words on every run.
    public static let maximumURLBytes = 8_192

    /// Why a URL is not fetched at all, if it is not.
    static func refusal(ofURL url: String) -> String? {
        let length = url.utf8.count
        if length > maximumURLBytes {
            return "the URL is \(length) bytes long; feedmerge fetches URLs of at most \(maximumURLBytes) bytes"
        }
        if url.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "the URL holds a control character"
        }
        return nil
    }

    /// The host of an http(s) URL as written (brackets kept around IPv6,
    /// percent-escapes decoded, lower-cased), for the address policy, which
    /// reads every spelling of an address itself.
    static func host(of url: String) -> String? { URLAuthority.parts(of: url)?.host }
}
