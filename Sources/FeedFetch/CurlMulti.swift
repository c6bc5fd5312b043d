internal import CCurl

/// The engine's one libcurl multi handle, created, driven and freed on the
/// engine thread. Every multi call goes through a method here that checks
/// the `CURLMcode` and throws a `CurlError` naming the call.
///
/// The easy handles added to it are held here until removed, so none is
/// cleaned up while attached, and `deinit` removes any still attached before
/// `curl_multi_cleanup` (libcurl requires that order).
final class CurlMulti {
    private let handle: UnsafeMutableRawPointer
    private var attached: [ObjectIdentifier: CurlEasy] = [:]

    /// The corresponding C function is `curl_multi_init`; sets HTTP/2
    /// multiplexing, the per-host connection limit and the size of the
    /// cache of idle connections.
    init(maximumConnectionsPerHost: Int, idleConnections: Int) throws(CurlError) {
        guard let handle = curl_multi_init() else { throw .outOfMemory("curl_multi_init") }
        self.handle = handle
        // A throw from here on runs `deinit`, which frees the handle.
        try set(CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX), "CURLMOPT_PIPELINING")
        try set(CURLMOPT_MAX_HOST_CONNECTIONS, maximumConnectionsPerHost, "CURLMOPT_MAX_HOST_CONNECTIONS")
        try set(CURLMOPT_MAXCONNECTS, idleConnections, "CURLMOPT_MAXCONNECTS")
    }

    deinit {
        // A deinit has no caller to report to. These calls fail only for a
        // handle libcurl does not know (a bug here), so debug builds stop on it.
        for easy in attached.values {
            let code = curl_multi_remove_handle(handle, easy.handle)
            assert(code == CURLM_OK, "curl_multi_remove_handle: \(String(cString: curl_multi_strerror(code)))")
        }
        attached.removeAll()
        let code = curl_multi_cleanup(handle)
        assert(code == CURLM_OK, "curl_multi_cleanup: \(String(cString: curl_multi_strerror(code)))")
    }

    private func check(_ code: CURLMcode, _ call: String) throws(CurlError) {
        guard code == CURLM_OK else { throw CurlError(call: call, code: code) }
    }

    private func set(_ option: CURLMoption, _ value: Int, _ name: String) throws(CurlError) {
        try check(CCurl_multi_setopt_long(handle, option, value), "curl_multi_setopt(\(name))")
    }

    /// For other threads: see `MultiWaker`.
    var waker: MultiWaker { MultiWaker(handle: handle) }

    func add(_ easy: CurlEasy) throws(CurlError) {
        try check(curl_multi_add_handle(handle, easy.handle), "curl_multi_add_handle")
        attached[ObjectIdentifier(easy)] = easy
    }

    /// A handle whose removal fails stays held, and `deinit` tries again.
    func remove(_ easy: CurlEasy) throws(CurlError) {
        try check(curl_multi_remove_handle(handle, easy.handle), "curl_multi_remove_handle")
        attached[ObjectIdentifier(easy)] = nil
    }

    /// Does what can be done without waiting.
    func perform() throws(CurlError) {
        var running: Int32 = 0
        try check(curl_multi_perform(handle, &running), "curl_multi_perform")
    }

    /// Waits for activity, a timeout of libcurl's, `timeoutMilliseconds`, or a wakeup.
    func poll(timeoutMilliseconds: Int32) throws(CurlError) {
        try check(curl_multi_poll(handle, nil, 0, timeoutMilliseconds, nil), "curl_multi_poll")
    }

    /// The next transfer that has finished: its easy handle and libcurl's result.
    func nextFinished() -> (easy: UnsafeMutableRawPointer, result: CURLcode)? {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(handle, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            return (easy, CCurl_message_result(message))
        }
        return nil
    }
}

@available(*, unavailable)
extension CurlMulti: Sendable {}

/// `curl_multi_wakeup` for a multi handle, the one multi call libcurl
/// allows from any thread ("This function can be called from any thread").
///
/// `@unchecked Sendable` is safe because of how `TransferEngine` holds it:
/// - `wake()` makes only that thread-safe call;
/// - a waker is stored only in the engine's lock-guarded state (its lifecycle),
///   and `wake()` is called only while holding that mutex;
/// - the engine thread publishes the waker after `curl_multi_init`, and
///   replaces the state with `.stopped` (dropping the waker) under the same
///   mutex before it releases its `CurlMulti`, whose `deinit` calls
///   `curl_multi_cleanup`. So no wake can run during or after the cleanup.
struct MultiWaker: @unchecked Sendable {
    fileprivate let handle: UnsafeMutableRawPointer

    func wake() throws(CurlError) {
        let code = curl_multi_wakeup(handle)
        guard code == CURLM_OK else { throw CurlError(call: "curl_multi_wakeup", code: code) }
    }
}
