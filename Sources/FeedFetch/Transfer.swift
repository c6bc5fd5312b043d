internal import CCurl
import Foundation
import RequestSigning

/// One HTTP transfer: its easy handle, what the callbacks gathered, and the
/// continuation waiting for it. Made when the transfer starts, and touched
/// only on the engine thread.
final class Transfer {
    let id: UInt64
    let request: FetchRequest
    /// What this hop asks: the request's URL, or where a redirect led.
    let url: String
    let host: String
    let configuration: FetchConfiguration
    let continuation: TransferEngine.Continuation
    let easy: CurlEasy

    var body: [UInt8] = []
    var headers = ResponseHeaders()
    /// Status of every response in the redirect chain, in order.
    var statuses: [Int] = []
    var exceededSizeLimit = false
    var refusedAddress: String?

    /// Creates and configures the easy handle.
    /// - Throws: the first libcurl call that failed.
    init(_ submission: TransferEngine.Submission, host: String, configuration: FetchConfiguration) throws(CurlError) {
        id = submission.id
        request = submission.request
        url = submission.url
        statuses = submission.hop?.statuses ?? []
        continuation = submission.continuation
        self.host = host
        self.configuration = configuration
        easy = try CurlEasy()
        try configure()
    }

    private func configure() throws(CurlError) {
        let c = configuration
        try easy.set(CURLOPT_URL, url)
        try easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        try easy.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        // With a host spacing (or a host with limits of its own), each hop of a redirect is a
        // transfer of its own, held to its host's limits as any other (`TransferLoop.follow`);
        // else libcurl follows.
        try easy.set(CURLOPT_FOLLOWLOCATION, c.followsRedirectsHopByHop ? 0 : 1)
        try easy.set(CURLOPT_MAXREDIRS, c.maximumRedirects)
        try easy.set(CURLOPT_CONNECTTIMEOUT, c.connectTimeoutSeconds)
        try easy.set(CURLOPT_LOW_SPEED_LIMIT, c.lowSpeedBytesPerSecond)
        try easy.set(CURLOPT_LOW_SPEED_TIME, c.lowSpeedSeconds)
        try easy.set(CURLOPT_TIMEOUT, c.totalTimeoutSeconds)
        try easy.set(CURLOPT_NOSIGNAL, 1)
        // "" offers every encoding this libcurl decodes: gzip, deflate, br, zstd.
        try easy.set(CURLOPT_ACCEPT_ENCODING, "")
        try easy.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        try easy.set(CURLOPT_USERAGENT, c.userAgentHeader)
        var headerLines = [
            "Accept: application/atom+xml, application/rss+xml, application/feed+json, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.8"
        ]
        if let etag = request.etag { headerLines.append("If-None-Match: \(etag)") }
        if let lastModified = request.lastModified { headerLines.append("If-Modified-Since: \(lastModified)") }
        let signature = try signatureHeaderLines()
        try easy.setHeaders(headerLines + signature)
        // The callbacks get this transfer back unretained: the engine holds
        // it for as long as its handle is attached to the multi handle.
        let me = Unmanaged.passUnretained(self).toOpaque()
        try easy.set(CURLOPT_PRIVATE, pointer: me)
        try easy.set(CURLOPT_WRITEDATA, pointer: me)
        try easy.set(CURLOPT_WRITEFUNCTION, callback: Transfer.receiveBody)
        try easy.set(CURLOPT_HEADERDATA, pointer: me)
        try easy.set(CURLOPT_HEADERFUNCTION, callback: Transfer.receiveHeader)
        if let form = request.formBody { try configurePost(form, signature: signature) }
        if !c.addressPolicy.refused.isEmpty {
            // Never through a proxy, whose address is all the check would see (see ProxyEnvironment).
            try easy.set(CURLOPT_PROXY, "")
            try easy.set(CURLOPT_OPENSOCKETDATA, pointer: me)
            try easy.setOpenSocket(Transfer.openSocket)
        }
    }

    /// Web Bot Auth's headers when a key is configured, signed as the transfer starts (so
    /// `created` is when the request leaves, however long it waited for its host) for this
    /// hop's authority. With a host spacing each hop of a redirect is a transfer of its own,
    /// signed for its own authority; without one libcurl follows and sends the same headers
    /// on every hop: a redirect within the authority keeps a valid signature, one to another
    /// authority carries a signature that does not verify there (docs/politeness.md).
    /// A request that cannot be signed fails rather than leave unsigned.
    private func signatureHeaderLines() throws(CurlError) -> [String] {
        do {
            return try configuration.webBotAuth.headerLines(forRequestTo: url, at: Date())
        } catch {
            throw CurlError(call: "signing the request (Web Bot Auth)", message: error.description)
        }
    }

    /// A form POSTed (a hub's publish ping): no validators, no redirect followed (a POST
    /// redirected would be sent again as a GET); signed as any request.
    private func configurePost(_ form: String, signature: [String]) throws(CurlError) {
        try easy.set(CURLOPT_FOLLOWLOCATION, 0)
        try easy.set(CURLOPT_POSTFIELDSIZE, form.utf8.count)
        try easy.set(CURLOPT_COPYPOSTFIELDS, form)
        try easy.setHeaders(["Content-Type: application/x-www-form-urlencoded", "Accept: */*"] + signature)
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
        data.withMemoryRebound(to: UInt8.self, capacity: length) {
            transfer.receive(headerLine: UnsafeBufferPointer(start: $0, count: length))
        }
        return length
    }

    /// Read on its bytes: only a kept field's value becomes a string.
    private func receive(headerLine bytes: UnsafeBufferPointer<UInt8>) {
        let line = bytes[...].trimmed { $0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0D) }
        if line.starts(with: "HTTP/".utf8) {
            // The status is the second space-separated field.
            let fields = line.split(separator: 0x20, maxSplits: 2)
            if fields.count >= 2, let status = Int(String(decoding: fields[1], as: UTF8.self)) {
                statuses.append(status)
            }
            headers = ResponseHeaders()
            body.removeAll(keepingCapacity: true)
        } else if let colon = line.firstIndex(of: UInt8(ascii: ":")),
            let field = ResponseHeaders.Field(name: line[..<colon])
        {
            let value = line[(colon + 1)...].trimmed { $0 == 0x20 || $0 == 0x09 }
            headers.record(field, value: String(decoding: value, as: UTF8.self))
        }
    }

    /// Refuses addresses the policy names before a socket exists.
    static let openSocket: curl_opensocket_callback = { userdata, _, address in
        guard let userdata, let address else { return CURL_SOCKET_BAD }
        let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
        // The address starts at `addr` and runs on for `addrlen` bytes (see `peerAddress`).
        guard let offset = MemoryLayout<curl_sockaddr>.offset(of: \.addr) else {
            transfer.refusedAddress = "curl_sockaddr has no fixed place for its address"
            return CURL_SOCKET_BAD
        }
        let family = address.pointee.family
        let length = Int(address.pointee.addrlen)
        switch peerAddress(family: family, length: length, at: UnsafeRawPointer(address) + offset) {
        case .unreadable(let problem):
            transfer.refusedAddress = problem
            return CURL_SOCKET_BAD
        case .ip(let bytes):
            if let block = transfer.configuration.addressPolicy.refusingBlock(for: bytes) {
                transfer.refusedAddress = AddressPolicy.refusal(of: block, resolved: true)
                return CURL_SOCKET_BAD
            }
        }
        return socket(family, address.pointee.socktype, address.pointee.protocol)
    }

    enum PeerAddress: Equatable {
        /// 4 bytes (IPv4) or 16 (IPv6).
        case ip([UInt8])
        /// Why the address could not be judged; such an address is refused.
        case unreadable(String)
    }

    /// The IP address libcurl is about to connect to. `curl_sockaddr.addr`
    /// is declared as a 16-byte `struct sockaddr`, but libcurl stores the
    /// whole address from there on (28 bytes for IPv6) and says how long it
    /// is in `addrlen`: the address is read from `area`, a raw pointer to
    /// where `addr` starts, and only when `length` covers its family's structure.
    static func peerAddress(family: Int32, length: Int, at area: UnsafeRawPointer) -> PeerAddress {
        func tooShort(_ name: String, _ size: Int) -> PeerAddress {
            .unreadable("libcurl gave an address of \(length) bytes for \(name), which needs \(size)")
        }
        switch family {
        case AF_INET:
            guard length >= MemoryLayout<sockaddr_in>.size else {
                return tooShort("IPv4", MemoryLayout<sockaddr_in>.size)
            }
            let inet = area.loadUnaligned(as: sockaddr_in.self)
            return .ip(withUnsafeBytes(of: inet.sin_addr) { Array($0) })
        case AF_INET6:
            guard length >= MemoryLayout<sockaddr_in6>.size else {
                return tooShort("IPv6", MemoryLayout<sockaddr_in6>.size)
            }
            let inet6 = area.loadUnaligned(as: sockaddr_in6.self)
            return .ip(withUnsafeBytes(of: inet6.sin6_addr) { Array($0) })
        default:
            return .unreadable("address family \(family) is neither IPv4 nor IPv6")
        }
    }
}

@available(*, unavailable)
extension Transfer: Sendable {}

extension BidirectionalCollection where SubSequence == Self {
    /// Without the leading and trailing elements that match.
    fileprivate func trimmed(where matches: (Element) -> Bool) -> Self {
        var result = self
        while let first = result.first, matches(first) { result.removeFirst() }
        while let last = result.last, matches(last) { result.removeLast() }
        return result
    }
}
