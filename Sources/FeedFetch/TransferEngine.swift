internal import CCurl
import Foundation

/// One curl multi handle driven by one thread this engine owns. Every easy
/// handle is created, run and freed on that thread; callers hand requests
/// in through a lock-protected queue and `curl_multi_wakeup`, and a
/// finished transfer resumes its caller's continuation. No cooperative-pool
/// thread ever blocks in libcurl.
final class TransferEngine: @unchecked Sendable {
    typealias Continuation = CheckedContinuation<Result<FetchResponse, FetchError>, Never>

    private let configuration: FetchConfiguration
    private let multi: UnsafeMutableRawPointer

    // Shared with callers, guarded by `lock`.
    private let lock = NSLock()
    private var incoming: [(id: UInt64, request: FetchRequest, continuation: Continuation)] = []
    private var cancellations: Set<UInt64> = []
    private var shuttingDown = false
    private var nextID: UInt64 = 0
    private var inFlight = 0

    // Owned by the engine thread.
    private var waiting: [Transfer] = []
    private var waitingStart = 0
    private var active: [UInt64: Transfer] = [:]
    private var perHost: [String: Int] = [:]

    init(configuration: FetchConfiguration) {
        self.configuration = configuration
        _ = Self.globalSetUp
        // Without a multi handle nothing can be fetched; libcurl only fails this when out of memory.
        multi = curl_multi_init()!
        // HTTP/2 multiplexing over one connection per host when offered.
        CCurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        CCurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maximumTransfersPerHost)
        let thread = Thread { [self] in run() }
        thread.name = "feedmerge-curl"
        thread.start()
    }

    /// `curl_global_init` once, before any handle exists.
    private static let globalSetUp: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    func makeID() -> UInt64 {
        lock.withLock {
            nextID += 1
            return nextID
        }
    }

    func submit(id: UInt64, request: FetchRequest, continuation: Continuation) {
        lock.withLock {
            incoming.append((id, request, continuation))
            inFlight += 1
        }
        curl_multi_wakeup(multi)
    }

    func cancel(id: UInt64) {
        lock.withLock { _ = cancellations.insert(id) }
        curl_multi_wakeup(multi)
    }

    /// Transfers submitted and not yet finished (waiting or running).
    var transfersInFlight: Int { lock.withLock { inFlight } }

    func shutDown() {
        lock.withLock { shuttingDown = true }
        curl_multi_wakeup(multi)
    }

    // MARK: the engine thread

    private func run() {
        var pendingCancellations: Set<UInt64> = []
        while true {
            let (arrivals, cancelled, stop) = lock.withLock {
                defer {
                    incoming.removeAll()
                    cancellations.removeAll()
                }
                return (incoming, cancellations, shuttingDown)
            }
            for arrival in arrivals {
                let transfer = Transfer(
                    id: arrival.id, request: arrival.request, host: Self.host(of: arrival.request.url),
                    configuration: configuration, continuation: arrival.continuation)
                waiting.append(transfer)
            }
            pendingCancellations.formUnion(cancelled)
            for id in pendingCancellations where cancelTransfer(id) { pendingCancellations.remove(id) }
            if stop {
                for transfer in waiting[waitingStart...] { finish(transfer, .failure(cancelledError(transfer))) }
                for transfer in active.values {
                    curl_multi_remove_handle(multi, transfer.handle)
                    finish(transfer, .failure(cancelledError(transfer)))
                }
                active.removeAll()
                break
            }
            startWaitingTransfers()
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            collectFinishedTransfers()
            startWaitingTransfers()
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        curl_multi_cleanup(multi)
    }

    /// Starts waiting transfers in arrival order while the global and
    /// per-host limits allow; a transfer whose host is full waits without
    /// holding up the ones behind it.
    private func startWaitingTransfers() {
        guard waitingStart < waiting.count, active.count < configuration.maximumConcurrentTransfers else { return }
        var skipped: [Transfer] = []
        while waitingStart < waiting.count, active.count < configuration.maximumConcurrentTransfers {
            let transfer = waiting[waitingStart]
            waitingStart += 1
            if perHost[transfer.host, default: 0] >= configuration.maximumTransfersPerHost {
                skipped.append(transfer)
                continue
            }
            start(transfer)
        }
        // Put the skipped ones back at the front, keeping their order.
        waiting.replaceSubrange(0..<waitingStart, with: skipped)
        waitingStart = 0
    }

    private func start(_ transfer: Transfer) {
        guard transfer.prepare() else {
            finish(
                transfer,
                .failure(
                    FetchError(
                        code: .transport, url: transfer.request.url, stage: .request,
                        message: "libcurl could not create a transfer")))
            return
        }
        transfer.started = .now()
        perHost[transfer.host, default: 0] += 1
        active[transfer.id] = transfer
        curl_multi_add_handle(multi, transfer.handle)
    }

    private func collectFinishedTransfers() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            var privatePointer: UnsafeMutablePointer<CChar>? = nil
            CCurl_getinfo_string(easy, CURLINFO_PRIVATE, &privatePointer)
            guard let privatePointer else { continue }
            let transfer = Unmanaged<Transfer>.fromOpaque(UnsafeRawPointer(privatePointer)).takeUnretainedValue()
            let code = CCurl_message_result(message)
            curl_multi_remove_handle(multi, easy)
            release(transfer)
            finish(transfer, TransferOutcome.result(of: transfer, code: code))
        }
    }

    /// Cancels a waiting or running transfer. - Returns: whether it was found.
    private func cancelTransfer(_ id: UInt64) -> Bool {
        if let transfer = active[id] {
            curl_multi_remove_handle(multi, transfer.handle)
            release(transfer)
            finish(transfer, .failure(cancelledError(transfer)))
            return true
        }
        if let index = waiting[waitingStart...].firstIndex(where: { $0.id == id }) {
            let transfer = waiting.remove(at: index)
            finish(transfer, .failure(cancelledError(transfer)))
            return true
        }
        return false
    }

    private func release(_ transfer: Transfer) {
        active[transfer.id] = nil
        perHost[transfer.host, default: 1] -= 1
        if perHost[transfer.host] == 0 { perHost[transfer.host] = nil }
    }

    private func finish(_ transfer: Transfer, _ result: Result<FetchResponse, FetchError>) {
        lock.withLock { inFlight -= 1 }
        transfer.continuation.resume(returning: result)
    }

    private func cancelledError(_ transfer: Transfer) -> FetchError {
        FetchError(code: .cancelled, url: transfer.request.url, stage: .transfer, message: "cancelled")
    }

    /// The lower-cased host of an http(s) URL, for the per-host limit.
    static func host(of url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return "" }
        let rest = url[schemeEnd.upperBound...]
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        return authority.lowercased()
    }
}
