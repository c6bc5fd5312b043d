import Basics
internal import CCurl
import Foundation

/// One curl multi handle driven by one thread this engine owns. No
/// cooperative-pool thread ever blocks in libcurl: callers hand requests in
/// through `submit`, and a finished transfer resumes its caller's continuation.
///
/// Ownership: what callers and the thread share (the incoming queue,
/// cancellations, counts and the lifecycle) is in one `Locked` (Basics:
/// a pthread mutex, which ThreadSanitizer understands); what only the
/// thread touches (the multi handle, the easy handles, the waiting list,
/// per-host counts) lives in a `TransferLoop` the thread makes and never
/// hands out. That is why the engine is `Sendable` without `@unchecked`.
///
/// Lifecycle: `running` → `stopping` (`shutDown`) → `stopped`, or `running`
/// → `stopped` when libcurl fails. Only `running` takes transfers; any
/// other state resumes a `submit` at once with an error.
///
/// Waking the thread: `curl_multi_wakeup` is called only while holding the
/// mutex and only with the waker the lifecycle holds; the thread sets
/// `stopped`, which drops the waker, under that mutex before it frees the
/// multi handle. Waking under the lock was chosen over a reference-counted
/// handle because the call only writes to a socket pair: it cannot block,
/// and it keeps one owner and one order of teardown.
final class TransferEngine: Sendable {
    typealias Continuation = CheckedContinuation<Result<FetchResponse, FetchError>, Never>

    struct Submission: Sendable {
        let id: UInt64
        let request: FetchRequest
        let continuation: Continuation
        /// A redirect followed by the loop (`TransferLoop.follow`): where this
        /// hop goes, and the statuses of the responses before it.
        var hop: (url: String, statuses: [Int])? = nil

        /// The URL this hop asks.
        var url: String { hop?.url ?? request.url }
    }

    /// Why the engine takes no more transfers.
    enum StopReason: Sendable {
        case shutDown
        case failed(CurlError)

        func error(for url: String) -> FetchError {
            switch self {
            case .shutDown:
                FetchError(code: .cancelled, url: url, stage: .request, message: "cancelled: the client was shut down")
            case .failed(let curlError): FetchError(curlError, url: url, stage: .transfer)
            }
        }
    }

    enum Lifecycle: Sendable {
        /// Taking transfers. The waker is nil until the thread has made the multi handle.
        case running(MultiWaker?)
        /// `shutDown` was asked; the thread has not stopped yet.
        case stopping(MultiWaker?)
        /// The thread is done: its multi handle is freed or about to be.
        case stopped(StopReason)
    }

    /// Guarded by `shared`.
    struct Shared: Sendable {
        var lifecycle = Lifecycle.running(nil)
        var incoming: [Submission] = []
        var cancellations: Set<UInt64> = []
        var nextID: UInt64 = 0
        /// Ids handed out and not yet finished: a cancellation for any other
        /// id (its transfer done) is dropped, never kept for a later turn.
        var outstanding: Set<UInt64> = []
        /// Cancellations the thread holds for submissions it has not seen
        /// yet, as of its last batch (for tests: it must come back to 0).
        var heldCancellations = 0
        /// Submitted and not yet finished (waiting or running).
        var inFlight = 0
        /// A wakeup libcurl could not deliver: its socket pair is broken,
        /// so the thread stops on it at its next turn (at most the poll timeout later).
        var wakeFailure: CurlError?
        /// The hosts asked only until a deadline (`HTTPClient.allow`), and
        /// whether they changed since the thread last took them.
        var deadlines = HostDeadlines()
        var deadlinesChanged = false
        /// For the hosts with a spacing: when each one's last transfer started.
        var lastStarts = RecentStarts()

        /// Called with the lock held (see the type's comment).
        mutating func wakeThread() {
            let waker: MultiWaker?
            switch lifecycle {
            case .running(let w), .stopping(let w): waker = w
            case .stopped: waker = nil
            }
            do {
                try waker?.wake()
            } catch {
                if wakeFailure == nil { wakeFailure = error }
            }
        }
    }

    /// What the thread takes from the shared state at each turn.
    struct Batch: Sendable {
        var arrivals: [Submission] = []
        var cancellations: Set<UInt64> = []
        var stopReason: StopReason?
        /// The hosts' deadlines, when they changed.
        var deadlines: HostDeadlines?
    }

    let configuration: FetchConfiguration
    private let shared = Locked(Shared())

    init(configuration: FetchConfiguration) {
        self.configuration = configuration
        if let failure = Self.globalSetUp {
            shared.withLock { $0.lifecycle = .stopped(.failed(failure)) }
            return
        }
        let thread = Thread { [self] in TransferLoop.run(engine: self) }
        thread.name = "feedmerge-curl"
        thread.start()
    }

    /// `curl_global_init` once, before any handle exists; nil when it succeeded.
    private static let globalSetUp: CurlError? = {
        let code = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        return code == CURLE_OK ? nil : CurlError(call: "curl_global_init", code: code)
    }()

    // MARK: callers' side

    func makeID() -> UInt64 {
        shared.withLock { state in
            state.nextID += 1
            state.outstanding.insert(state.nextID)
            return state.nextID
        }
    }

    /// Queues a transfer; when the engine is not running, resumes the caller at once with the reason.
    func submit(_ submission: Submission) {
        let refusal: StopReason? = shared.withLock { state in
            switch state.lifecycle {
            case .running:
                state.incoming.append(submission)
                state.inFlight += 1
                state.wakeThread()
                return nil
            case .stopping:
                state.outstanding.remove(submission.id)
                return .shutDown
            case .stopped(let reason):
                state.outstanding.remove(submission.id)
                return reason
            }
        }
        if let refusal {
            submission.continuation.resume(returning: .failure(refusal.error(for: submission.request.url)))
        }
    }

    /// A stopping engine cancels everything anyway.
    func cancel(id: UInt64) {
        shared.withLock { state in
            guard case .running = state.lifecycle, state.outstanding.contains(id) else { return }
            state.cancellations.insert(id)
            state.wakeThread()
        }
    }

    /// Transfers submitted and not yet finished (waiting or running).
    var transfersInFlight: Int { shared.withLock { $0.inFlight } }

    /// Sets when each host may be asked until (nil: not at all), and wakes the thread to act on it.
    func setDeadlines(_ hosts: some Sequence<String>, to deadline: ContinuousClock.Instant?) {
        shared.withLock { state in
            for host in hosts { state.deadlines.set(host, deadline) }
            state.deadlinesChanged = true
            state.wakeThread()
        }
    }

    /// The hosts are asked freely again.
    func forgetDeadlines(_ hosts: some Sequence<String>) {
        shared.withLock { state in
            for host in hosts { state.deadlines.forget(host) }
            state.deadlinesChanged = true
        }
    }

    /// Cancels every transfer and stops the thread; later submissions fail at once.
    func shutDown() {
        shared.withLock { state in
            guard case .running(let waker) = state.lifecycle else { return }
            state.lifecycle = .stopping(waker)
            state.wakeThread()
        }
    }

    // MARK: the engine thread's side (called by TransferLoop only)

    /// The multi handle exists: callers may wake the thread from now on.
    func publish(_ waker: MultiWaker) {
        shared.withLock { state in
            switch state.lifecycle {
            case .running: state.lifecycle = .running(waker)
            case .stopping: state.lifecycle = .stopping(waker)
            case .stopped: break
            }
        }
    }

    /// Cancellations the thread holds for submissions it has not seen yet.
    var heldCancellations: Int { shared.withLock { $0.heldCancellations } }

    /// What arrived since the last batch; cancellations only for transfers
    /// not finished meanwhile. - Parameter held: the cancellations the thread still holds.
    func takeBatch(held: Int) -> Batch {
        shared.withLock { state in
            var batch = Batch()
            state.heldCancellations = held
            swap(&batch.arrivals, &state.incoming)
            swap(&batch.cancellations, &state.cancellations)
            batch.cancellations.formIntersection(state.outstanding)
            if state.deadlinesChanged {
                batch.deadlines = state.deadlines
                state.deadlinesChanged = false
            }
            if let failure = state.wakeFailure {
                batch.stopReason = .failed(failure)
            } else if case .stopping = state.lifecycle {
                batch.stopReason = .shutDown
            }
            return batch
        }
    }

    /// A transfer to `host` started (with a spacing for the host only).
    func started(host: String, at instant: ContinuousClock.Instant) {
        shared.withLock { $0.lastStarts.note(host, at: instant, spacing: configuration.spacing(forHost:)) }
    }

    /// When each of these hosts last had a transfer started (only hosts with a spacing are noted).
    func lastStarts(of hosts: some Sequence<String>) -> [(host: String, instant: ContinuousClock.Instant)] {
        shared.withLock { state in hosts.compactMap { host in state.lastStarts[host].map { (host, $0) } } }
    }

    /// A transfer has finished and its continuation is about to be resumed.
    func finished(id: UInt64) {
        shared.withLock { state in
            state.inFlight -= 1
            state.outstanding.remove(id)
        }
    }

    /// Sets `stopped`, dropping the waker, so no caller can wake the multi
    /// handle the thread frees next. - Returns: the submissions that arrived
    /// after the last batch, no longer counted in flight, for the thread to resume.
    func stop(_ reason: StopReason) -> [Submission] {
        shared.withLock { state in
            state.lifecycle = .stopped(reason)
            state.cancellations.removeAll()
            var late: [Submission] = []
            swap(&late, &state.incoming)
            state.inFlight -= late.count
            state.outstanding.removeAll()
            return late
        }
    }

    /// The canonical host of an http(s) URL (`URLAuthority.host(of:)`), for the per-host limit.
    static func host(of url: String) -> String { URLAuthority.host(of: url) }
}
