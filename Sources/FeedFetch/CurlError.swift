internal import CCurl

/// A libcurl call that failed: which call (and option), and what libcurl
/// said. Carried in `FetchError.curlError` with code `.curl`.
public struct CurlError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The call, with the option or info it was about:
    /// `curl_easy_setopt(CURLOPT_CONNECTTIMEOUT)`, `curl_multi_poll`.
    public var call: String
    /// libcurl's message for the code (`curl_easy_strerror`,
    /// `curl_multi_strerror`), or what a call returning NULL means.
    public var message: String

    public init(call: String, message: String) {
        self.call = call
        self.message = message
    }

    public var description: String { "\(call) failed: \(message)" }

    init(call: String, code: CURLcode) {
        self.init(call: call, message: String(cString: curl_easy_strerror(code)))
    }

    init(call: String, code: CURLMcode) {
        self.init(call: call, message: String(cString: curl_multi_strerror(code)))
    }

    /// A call that returned NULL: libcurl's constructors and `curl_slist_append`
    /// do that only when they cannot allocate.
    static func outOfMemory(_ call: String) -> CurlError {
        CurlError(call: call, message: "out of memory (it returned NULL)")
    }

    /// `curl_easy_setopt(CURLOPT_URL)`: the option's name from libcurl's
    /// own table, looked up only when a call has failed.
    static func setopt(_ option: CURLoption, code: CURLcode) -> CurlError {
        let name = curl_easy_option_by_id(option).flatMap { $0.pointee.name }.map { "CURLOPT_" + String(cString: $0) }
        return CurlError(call: "curl_easy_setopt(\(name ?? "option \(option.rawValue)"))", code: code)
    }
}

extension FetchError {
    /// A transfer that libcurl would not set up or run.
    init(_ curlError: CurlError, url: String, stage: Stage) {
        self.init(code: .curl, url: url, stage: stage, message: curlError.description)
        self.curlError = curlError
    }
}
