internal import CCurl

/// The engine thread's side of `TransferEngine`: the multi handle, the
/// transfers waiting for a slot and those running, and the per-host counts.
/// `run(engine:)` makes it on that thread and never hands it out, so none of
/// it needs a lock, and the compiler knows: nothing here is `Sendable`.
final class TransferLoop {
    private let engine: TransferEngine
    private let configuration: FetchConfiguration
    private let multi: CurlMulti
    private var waiting = WaitingTransfers<TransferEngine.Submission>()
    private var active: [UInt64: Transfer] = [:]
    private var perHost: [String: Int] = [:]
    /// For the hosts with a spacing: when each last had a transfer started or ended,
    /// and the hosts held back by it, with when they may start again.
    private var lastStart = RecentStarts()
    private var resting: [String: ContinuousClock.Instant] = [:]
    /// Answers of 429 by host (with `throttledHostAfter429s`).
    private var tooManyRequests: [String: Int] = [:]
    /// Cancellations for transfers not seen yet (a task cancelled before its
    /// submission arrived): each leaves when its submission does, since
    /// arrivals join `waiting` before the cancellations are tried, and the
    /// engine hands over none for a transfer already finished.
    private var pendingCancellations: Set<UInt64> = []
    /// The hosts asked only until a deadline, as of the last batch.
    private var deadlines = HostDeadlines()

    private init(engine: TransferEngine, multi: CurlMulti) {
        self.engine = engine
        self.configuration = engine.configuration
        self.multi = multi
    }

    /// The engine thread's body: runs until the engine stops, then finishes
    /// every transfer. The multi handle is freed when this returns, after
    /// `engine.stop` has made it unreachable to callers.
    static func run(engine: TransferEngine) {
        let loop: TransferLoop
        do {
            let c = engine.configuration
            let multi = try CurlMulti(
                maximumConnectionsPerHost: c.largestTransfersPerHost,
                idleConnections: c.maximumIdleConnections
                    ?? OpenFileLimit.idleConnections(transfersInFlight: c.maximumConcurrentTransfers))
            loop = TransferLoop(engine: engine, multi: multi)
        } catch {
            let reason = TransferEngine.StopReason.failed(error)
            for submission in engine.stop(reason) {
                submission.continuation.resume(returning: .failure(reason.error(for: submission.request.url)))
            }
            return
        }
        engine.publish(loop.multi.waker)
        loop.stop(loop.runUntilStopped())
    }

    /// - Returns: why it stopped: `shutDown`, or the multi call that failed.
    private func runUntilStopped() -> TransferEngine.StopReason {
        while true {
            let batch = engine.takeBatch(held: pendingCancellations.count)
            for submission in batch.arrivals {
                waiting.append(submission, host: TransferEngine.host(of: submission.url))
            }
            if let reason = batch.stopReason { return reason }
            pendingCancellations.formUnion(batch.cancellations)
            if let changed = batch.deadlines { deadlines = changed }
            do {
                for id in pendingCancellations {
                    if try cancelTransfer(id) { pendingCancellations.remove(id) }
                }
                try withdrawTransfers()
                startWaitingTransfers()
                try multi.perform()
                try collectFinishedTransfers()
                startWaitingTransfers()
                try multi.poll(timeoutMilliseconds: pollTimeout())
            } catch {
                return .failed(error)
            }
        }
    }

    /// Finishes every waiting and running transfer with the reason's error,
    /// removes the running ones from the multi handle, and marks the engine
    /// stopped; submissions that came in meanwhile are resumed too.
    private func stop(_ reason: TransferEngine.StopReason) {
        for submission in waiting.removeAll() {
            finish(submission, .failure(reason.error(for: submission.request.url)))
        }
        for transfer in active.values {
            var failure = reason.error(for: transfer.request.url)
            do {
                try multi.remove(transfer.easy)
            } catch {
                failure = FetchError(error, url: transfer.request.url, stage: .transfer)
            }
            finish(transfer, .failure(failure))
        }
        active.removeAll()
        perHost.removeAll()
        for submission in engine.stop(reason) {
            submission.continuation.resume(returning: .failure(reason.error(for: submission.request.url)))
        }
    }

    /// Starts waiting transfers in arrival order while the global and
    /// per-host limits allow (each host's own, `FetchConfiguration+HostLimits`);
    /// a transfer whose host is full waits without holding up the ones behind it.
    private func startWaitingTransfers() {
        let now = ContinuousClock.now
        if !resting.isEmpty {
            for (host, until) in resting where until <= now {
                resting[host] = nil
                waiting.hostHasRoom(host)
            }
        }
        while active.count < configuration.maximumConcurrentTransfers,
            let (submission, host) = waiting.popFirst(where: { host in
                guard perHost[host, default: 0] < configuration.transfersAllowed(toHost: host) else { return false }
                let spacing = configuration.spacing(forHost: host)
                guard spacing > .zero, let last = lastStart[host], now < last + spacing else { return true }
                resting[host] = last + spacing  // parked until then
                return false
            })
        {
            // Read right before the start: a process resumed past its host's deadline starts nothing there.
            if !deadlines.isEmpty && deadlines.withdraws(host, at: .now) {
                finish(submission, .failure(withdrawnError(submission.request.url)))
                continue
            }
            if let limit = configuration.throttledHostAfter429s, tooManyRequests[host, default: 0] >= limit {
                finish(
                    submission,
                    .failure(
                        FetchError(
                            code: .hostThrottled, url: submission.request.url, stage: .request,
                            message: "not asked: its host answered 429 Too Many Requests to \(limit) feeds")))
                continue
            }
            start(submission, host: host)
        }
    }

    /// Cancels the running transfers whose host may no longer be asked
    /// (the waiting ones fail when they come up, in `startWaitingTransfers`).
    private func withdrawTransfers() throws(CurlError) {
        guard !deadlines.isEmpty else { return }
        let now = ContinuousClock.now
        for transfer in active.values where deadlines.withdraws(transfer.host, at: now) {
            try multi.remove(transfer.easy)
            release(transfer)
            finish(transfer, .failure(withdrawnError(transfer.request.url)))
        }
    }

    /// At most a second; sooner when a host's deadline comes first, so that
    /// its transfers stop then, or when a resting host may start again.
    private func pollTimeout() -> Int32 {
        let now = ContinuousClock.now
        let deadline = deadlines.isEmpty ? nil : deadlines.next(after: now)
        guard let next = [deadline, resting.values.min()].compactMap({ $0 }).min() else { return 1000 }
        guard next > now else { return 1 }
        let (seconds, attoseconds) = (next - now).components
        return Int32(min(1000, max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)))
    }

    /// A transfer libcurl will not set up finishes at once with the call that failed.
    private func start(_ submission: TransferEngine.Submission, host: String) {
        let transfer: Transfer
        do {
            transfer = try Transfer(submission, host: host, configuration: configuration)
            try multi.add(transfer.easy)
        } catch {
            finish(submission, .failure(FetchError(error, url: submission.request.url, stage: .request)))
            return
        }
        perHost[transfer.host, default: 0] += 1
        active[transfer.id] = transfer
        markSpacing(transfer.host)
    }

    private func collectFinishedTransfers() throws(CurlError) {
        while let (easy, code) = multi.nextFinished() {
            // Every handle the multi holds is a running transfer's, with the
            // transfer as its private pointer; `active` keeps it alive.
            guard let pointer = try CurlEasy.privatePointer(of: easy) else {
                throw CurlError(
                    call: "curl_easy_getinfo(CURLINFO_PRIVATE)", message: "a finished handle has no transfer")
            }
            let transfer = Unmanaged<Transfer>.fromOpaque(pointer).takeUnretainedValue()
            try multi.remove(transfer.easy)
            release(transfer)
            if code == CURLE_OK, configuration.followsRedirectsHopByHop, try follow(transfer) { continue }
            let result = TransferOutcome.result(of: transfer, code: code)
            if configuration.throttledHostAfter429s != nil, case .failure(let failure) = result, failure.status == 429 {
                tooManyRequests[transfer.host, default: 0] += 1
            }
            finish(transfer, result)
        }
    }

    /// A redirect, when this loop follows them (with a host spacing, or a
    /// host with limits of its own: `followsRedirectsHopByHop`): its next hop
    /// waits its turn as a transfer of its own, so the spacing and the
    /// per-host limit of the host it leads to hold for every request, as
    /// libcurl following would not. - Returns: whether the transfer goes on as a next hop.
    private func follow(_ transfer: Transfer) throws(CurlError) -> Bool {
        let status = try transfer.easy.long(CURLINFO_RESPONSE_CODE, "CURLINFO_RESPONSE_CODE")
        // A form POSTed (a hub's publish ping) is not followed, as libcurl does not follow it (`Transfer`).
        guard transfer.request.formBody == nil, [301, 302, 303, 307, 308].contains(status), !transfer.exceededSizeLimit,
            let target = try transfer.easy.string(CURLINFO_REDIRECT_URL, "CURLINFO_REDIRECT_URL")
        else { return false }
        let hops = transfer.statuses.filter { $0 >= 200 }
        let lower = target.lowercased()
        let failure: FetchError?
        if hops.count > configuration.maximumRedirects {
            failure = FetchError(
                code: .tooManyRedirects, url: transfer.request.url, stage: .request,
                message: "Maximum (\(configuration.maximumRedirects)) redirects followed")
        } else if !(lower.hasPrefix("http://") || lower.hasPrefix("https://")) {
            failure = FetchError(
                code: .refusedProtocol, url: transfer.request.url, stage: .request,
                message: "only http and https are fetched: a redirect to \(target)")
        } else {
            failure = nil
        }
        if let failure {
            finish(transfer, .failure(failure))
            return true
        }
        var next = TransferEngine.Submission(
            id: transfer.id, request: transfer.request, continuation: transfer.continuation)
        next.hop = (target, hops)
        waiting.append(next, host: TransferEngine.host(of: target))
        return true
    }

    /// Cancels a waiting or running transfer. - Returns: whether it was found.
    private func cancelTransfer(_ id: UInt64) throws(CurlError) -> Bool {
        if let transfer = active[id] {
            try multi.remove(transfer.easy)
            release(transfer)
            finish(transfer, .failure(cancelledError(transfer.request.url)))
            return true
        }
        if let submission = waiting.remove(where: { $0.id == id }) {
            finish(submission, .failure(cancelledError(submission.request.url)))
            return true
        }
        return false
    }

    /// With a spacing for the host, its next transfer waits the spacing from
    /// now: marked when a transfer is added and again when it ends, since
    /// its request may leave well after it was added (connecting, or
    /// waiting in libcurl), and the spacing counts at the server.
    private func markSpacing(_ host: String) {
        guard configuration.spacing(forHost: host) > .zero else { return }
        let now = ContinuousClock.now
        lastStart.note(host, at: now, spacing: configuration.spacing(forHost:))
        engine.started(host: host, at: now)
    }

    private func release(_ transfer: Transfer) {
        markSpacing(transfer.host)
        active[transfer.id] = nil
        perHost[transfer.host, default: 1] -= 1
        if perHost[transfer.host] == 0 { perHost[transfer.host] = nil }
        waiting.hostHasRoom(transfer.host)
    }

    private func finish(_ transfer: Transfer, _ result: Result<FetchResponse, FetchError>) {
        engine.finished(id: transfer.id)
        transfer.continuation.resume(returning: result)
    }

    private func finish(_ submission: TransferEngine.Submission, _ result: Result<FetchResponse, FetchError>) {
        engine.finished(id: submission.id)
        submission.continuation.resume(returning: result)
    }

    private func cancelledError(_ url: String) -> FetchError {
        FetchError(code: .cancelled, url: url, stage: .transfer, message: "cancelled")
    }

    private func withdrawnError(_ url: String) -> FetchError {
        FetchError(
            code: .withdrawn, url: url, stage: .transfer,
            message: "not fetched: this process no longer holds the host (its lease ran out or was lost)")
    }
}

@available(*, unavailable)
extension TransferLoop: Sendable {}
