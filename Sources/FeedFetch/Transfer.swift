internal import CCurl
import Foundation

/// One HTTP transfer: its easy handle, its buffers, and the continuation
/// waiting for it. Touched only on the engine's thread once submitted.
final class Transfer {
    let id: UInt64
    let request: FetchRequest
    let host: String
    let configuration: FetchConfiguration
    let continuation: CheckedContinuation<Result<FetchResponse, FetchError>, Never>
    let enqueued = DispatchTime.now()
    var started: DispatchTime?

    private(set) var handle: UnsafeMutableRawPointer?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// libcurl writes its error message here; it must outlive the handle.
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

    var body: [UInt8] = []
    var headers = ResponseHeaders()
    /// Status of every response in the redirect chain, in order.
    var statuses: [Int] = []
    var exceededSizeLimit = false
    var refusedAddress: String?

    init(
        id: UInt64, request: FetchRequest, host: String, configuration: FetchConfiguration,
        continuation: CheckedContinuation<Result<FetchResponse, FetchError>, Never>
    ) {
        self.id = id
        self.request = request
        self.host = host
        self.configuration = configuration
        self.continuation = continuation
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        errorBuffer.deallocate()
        if let handle { curl_easy_cleanup(handle) }
        if let headerList { curl_slist_free_all(headerList) }
    }

    /// Creates and configures the easy handle.
    /// - Returns: false when libcurl could not allocate it.
    func prepare() -> Bool {
        guard let easy = curl_easy_init() else { return false }
        handle = easy
        let c = configuration
        CCurl_setopt_string(easy, CURLOPT_URL, request.url)
        CCurl_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        CCurl_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        CCurl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 1)
        CCurl_setopt_long(easy, CURLOPT_MAXREDIRS, c.maximumRedirects)
        CCurl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT, c.connectTimeoutSeconds)
        CCurl_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, c.lowSpeedBytesPerSecond)
        CCurl_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, c.lowSpeedSeconds)
        CCurl_setopt_long(easy, CURLOPT_TIMEOUT, c.totalTimeoutSeconds)
        CCurl_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        // "" offers every encoding this libcurl decodes: gzip, deflate, br, zstd.
        CCurl_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, "")
        CCurl_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        CCurl_setopt_string(easy, CURLOPT_USERAGENT, c.userAgent)
        CCurl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        var list: UnsafeMutablePointer<curl_slist>? = nil
        list = curl_slist_append(
            list,
            "Accept: application/atom+xml, application/rss+xml, application/feed+json, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.8"
        )
        if let etag = request.etag { list = curl_slist_append(list, "If-None-Match: \(etag)") }
        if let lastModified = request.lastModified {
            list = curl_slist_append(list, "If-Modified-Since: \(lastModified)")
        }
        headerList = list
        CCurl_setopt_slist(easy, CURLOPT_HTTPHEADER, list)
        let me = Unmanaged.passUnretained(self).toOpaque()
        CCurl_setopt_pointer(easy, CURLOPT_PRIVATE, me)
        CCurl_setopt_pointer(easy, CURLOPT_WRITEDATA, me)
        CCurl_setopt_write_function(easy, CURLOPT_WRITEFUNCTION, Transfer.receiveBody)
        CCurl_setopt_pointer(easy, CURLOPT_HEADERDATA, me)
        CCurl_setopt_write_function(easy, CURLOPT_HEADERFUNCTION, Transfer.receiveHeader)
        if !c.addressPolicy.refused.isEmpty {
            CCurl_setopt_pointer(easy, CURLOPT_OPENSOCKETDATA, me)
            CCurl_setopt_opensocket_function(easy, Transfer.openSocket)
        }
        return true
    }

    /// libcurl's message for the last error, from the error buffer.
    var curlMessage: String {
        String(cString: errorBuffer)
    }

    // MARK: callbacks (C function pointers; `userdata` is the Transfer)

    /// The decoded body: stops at the size cap, so a chunked body or a
    /// decompression bomb costs at most the cap.
    static let receiveBody: curl_write_callback = { data, size, count, userdata in
        let transfer = Unmanaged<Transfer>.fromOpaque(userdata!).takeUnretainedValue()
        let length = size * count
        guard transfer.body.count + length <= transfer.configuration.maximumBodyBytes else {
            // What still fits is kept: the parser can take the entries that arrived whole.
            let room = transfer.configuration.maximumBodyBytes - transfer.body.count
            if let data, room > 0 {
                data.withMemoryRebound(to: UInt8.self, capacity: room) {
                    transfer.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: room))
                }
            }
            transfer.exceededSizeLimit = true
            return 0  // makes libcurl fail the transfer with CURLE_WRITE_ERROR
        }
        if let data {
            data.withMemoryRebound(to: UInt8.self, capacity: length) {
                transfer.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
            }
        }
        return length
    }

    /// One header line; a status line starts a new response of the redirect chain.
    static let receiveHeader: curl_write_callback = { data, size, count, userdata in
        let transfer = Unmanaged<Transfer>.fromOpaque(userdata!).takeUnretainedValue()
        let length = size * count
        guard let data else { return length }
        let line = data.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }.trimmingCharacters(in: " \t\r\n")
        if line.hasPrefix("HTTP/") {
            let fields = line.split(separator: " ")
            if fields.count >= 2, let status = Int(fields[1]) { transfer.statuses.append(status) }
            transfer.headers = ResponseHeaders()
            transfer.body.removeAll(keepingCapacity: true)
        } else if let colon = line.firstIndex(of: ":") {
            let name = String(line[..<colon])
            let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: " \t")
            transfer.headers.record(name: name, value: value)
        }
        return length
    }

    /// Refuses addresses the policy names before a socket exists.
    static let openSocket: curl_opensocket_callback = { userdata, _, address in
        let transfer = Unmanaged<Transfer>.fromOpaque(userdata!).takeUnretainedValue()
        guard let address else { return CURL_SOCKET_BAD }
        let family = address.pointee.family
        var bytes: [UInt8] = []
        withUnsafePointer(to: &address.pointee.addr) { pointer in
            let raw = UnsafeRawPointer(pointer)
            if family == AF_INET {
                let inet = raw.load(as: sockaddr_in.self)
                withUnsafeBytes(of: inet.sin_addr) { bytes = Array($0) }
            } else if family == AF_INET6 {
                let inet6 = raw.load(as: sockaddr_in6.self)
                withUnsafeBytes(of: inet6.sin6_addr) { bytes = Array($0) }
            }
        }
        if let block = transfer.configuration.addressPolicy.refusingBlock(for: bytes) {
            transfer.refusedAddress = "\(IPAddress.format(bytes)) is in \(block), which the address policy refuses"
            return CURL_SOCKET_BAD
        }
        return socket(family, address.pointee.socktype, address.pointee.protocol)
    }
}

@available(*, unavailable)
extension Transfer: Sendable {}
