internal import CCurl

/// One libcurl easy handle and the memory it points at: its error buffer
/// and its request-header list. Every call that can fail goes through a
/// method here that checks libcurl's code and throws a `CurlError` naming
/// the call and the option.
///
/// Freed in `deinit`, the handle first: libcurl may use the error buffer
/// and the header list until `curl_easy_cleanup` returns. A handle added to
/// a multi handle is kept alive by that `CurlMulti` until it is removed,
/// so it is never cleaned up while attached.
final class CurlEasy {
    /// The `CURL *`, for `CurlMulti` and the callbacks' `CURLOPT_PRIVATE`.
    let handle: UnsafeMutableRawPointer
    /// libcurl writes its message for a failed transfer here.
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var headerList: UnsafeMutablePointer<curl_slist>?

    /// The corresponding C function is `curl_easy_init`; sets the error buffer.
    init() throws(CurlError) {
        guard let handle = curl_easy_init() else { throw .outOfMemory("curl_easy_init") }
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        // A throw from here on runs `deinit`, which frees both.
        try check(CCurl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer), CURLOPT_ERRORBUFFER)
    }

    deinit {
        curl_easy_cleanup(handle)
        if let headerList { curl_slist_free_all(headerList) }
        errorBuffer.deallocate()
    }

    private func check(_ code: CURLcode, _ option: CURLoption) throws(CurlError) {
        guard code == CURLE_OK else { throw .setopt(option, code: code) }
    }

    // MARK: curl_easy_setopt, one form per argument type

    func set(_ option: CURLoption, _ value: Int) throws(CurlError) {
        try check(CCurl_setopt_long(handle, option, value), option)
    }

    /// libcurl copies the string.
    func set(_ option: CURLoption, _ value: String) throws(CurlError) {
        try check(CCurl_setopt_string(handle, option, value), option)
    }

    func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer) throws(CurlError) {
        try check(CCurl_setopt_pointer(handle, option, pointer), option)
    }

    func set(_ option: CURLoption, callback: curl_write_callback) throws(CurlError) {
        try check(CCurl_setopt_write_function(handle, option, callback), option)
    }

    func setOpenSocket(_ callback: curl_opensocket_callback) throws(CurlError) {
        try check(CCurl_setopt_opensocket_function(handle, callback), CURLOPT_OPENSOCKETFUNCTION)
    }

    /// Request headers (`Name: value` lines), kept until the handle is freed.
    /// The corresponding C functions are `curl_slist_append` and
    /// `curl_easy_setopt(CURLOPT_HTTPHEADER)`.
    func setHeaders(_ lines: [String]) throws(CurlError) {
        var list: UnsafeMutablePointer<curl_slist>? = nil
        for line in lines {
            guard let longer = curl_slist_append(list, line) else {
                if let list { curl_slist_free_all(list) }
                throw .outOfMemory("curl_slist_append")
            }
            list = longer
        }
        let code = CCurl_setopt_slist(handle, CURLOPT_HTTPHEADER, list)
        guard code == CURLE_OK else {
            if let list { curl_slist_free_all(list) }
            throw .setopt(CURLOPT_HTTPHEADER, code: code)
        }
        if let headerList { curl_slist_free_all(headerList) }
        headerList = list
    }

    // MARK: curl_easy_getinfo

    func long(_ info: CURLINFO, _ name: String) throws(CurlError) -> Int {
        var value = 0
        let code = CCurl_getinfo_long(handle, info, &value)
        guard code == CURLE_OK else { throw CurlError(call: "curl_easy_getinfo(\(name))", code: code) }
        return value
    }

    func offset(_ info: CURLINFO, _ name: String) throws(CurlError) -> Int64 {
        var value: curl_off_t = 0
        let code = CCurl_getinfo_off_t(handle, info, &value)
        guard code == CURLE_OK else { throw CurlError(call: "curl_easy_getinfo(\(name))", code: code) }
        return Int64(value)
    }

    /// Nil when libcurl has no value.
    func string(_ info: CURLINFO, _ name: String) throws(CurlError) -> String? {
        var value: UnsafeMutablePointer<CChar>? = nil
        let code = CCurl_getinfo_string(handle, info, &value)
        guard code == CURLE_OK else { throw CurlError(call: "curl_easy_getinfo(\(name))", code: code) }
        return value.map { String(cString: $0) }
    }

    /// What `CURLOPT_PRIVATE` was set to, for a handle a multi-handle message names.
    static func privatePointer(of handle: UnsafeMutableRawPointer) throws(CurlError) -> UnsafeMutableRawPointer? {
        var value: UnsafeMutablePointer<CChar>? = nil
        let code = CCurl_getinfo_string(handle, CURLINFO_PRIVATE, &value)
        guard code == CURLE_OK else { throw CurlError(call: "curl_easy_getinfo(CURLINFO_PRIVATE)", code: code) }
        return value.map { UnsafeMutableRawPointer($0) }
    }

    /// libcurl's message for the last failure, from the error buffer; empty when it wrote none.
    var errorMessage: String { String(cString: errorBuffer) }
}

@available(*, unavailable)
extension CurlEasy: Sendable {}
