import Foundation

/// Fetches feeds: `http`/`https` through libcurl (see `TransferEngine`),
/// `file://` URLs and local paths straight from the disk.
///
/// Callers are task-group children: `fetch` suspends, never blocks, and
/// cancelling the task removes its transfer.
public final class HTTPClient: Sendable {
    public let configuration: FetchConfiguration
    private let engine: TransferEngine

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
            return try LocalFile.read(path, url: request.url, limit: configuration.maximumBodyBytes)
        }
        let scheme = request.url.prefix { $0 != ":" }.lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw FetchError(
                code: .refusedProtocol, url: request.url, stage: .request,
                message: "only http and https are fetched, not \(scheme):")
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
}
