import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A worker's HTTP endpoint for its supervisor and its scraper, on a thread
/// of its own: `GET /metrics` (the registry in Prometheus's text format) and
/// `GET /healthz` (200 while the process can do its work; 503 with the
/// reason while it cannot). One connection at a time, each with a 5 s limit
/// to send its request and read the answer, closed after the answer: a
/// scraper asks a few times a minute, and a stalled client holds the thread
/// 5 s at most.
public final class MetricsListener: Sendable {
    /// What `/healthz` answers: nil while healthy, else why not.
    public typealias Health = @Sendable () -> String?

    /// The address it listens on, as bound (`127.0.0.1:9464`; the port the system chose for port 0).
    public let address: String
    private let socket: Int32

    /// Binds and listens on `HOST:PORT` (`[::1]:9464` for IPv6; a host name is resolved), then serves
    /// on its own thread for as long as the process runs.
    public init(listening on: String, metrics: MetricRegistry, health: @escaping Health) throws(ListenerError) {
        let (host, port) = try Self.split(on)
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, port, &hints, &found)
        guard status == 0, let first = found else {
            throw ListenerError("\(on): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(found) }
        let fd = Glibc.socket(first.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ListenerError("\(on): socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0, listen(fd, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw ListenerError("\(on): \(reason)")
        }
        socket = fd
        address = Self.boundAddress(fd) ?? on
        let thread = Thread { Self.serve(fd, metrics: metrics, health: health) }
        thread.name = "feedmerge.metrics"
        thread.start()
    }

    public struct ListenerError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// `HOST:PORT` or `[V6]:PORT` into its parts.
    public static func split(_ address: String) throws(ListenerError) -> (host: String, port: String) {
        guard let colon = address.lastIndex(of: ":") else {
            throw ListenerError("\(address): not HOST:PORT (127.0.0.1:9464, [::1]:9464)")
        }
        var host = String(address[..<colon])
        let port = String(address[address.index(after: colon)...])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, let number = UInt16(port), String(number) == port else {
            throw ListenerError("\(address): not HOST:PORT (127.0.0.1:9464, [::1]:9464)")
        }
        return (host, port)
    }

    private static func boundAddress(_ fd: Int32) -> String? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var port = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let named = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                getsockname(fd, address, &length) == 0
                    && getnameinfo(
                        address, length, &host, socklen_t(host.count), &port, socklen_t(port.count),
                        NI_NUMERICHOST | NI_NUMERICSERV) == 0
            }
        }
        guard named else { return nil }
        let text = { (chars: [CChar]) in
            String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        let hostText = text(host)
        return (hostText.contains(":") ? "[\(hostText)]" : hostText) + ":" + text(port)
    }

    private static func serve(_ listening: Int32, metrics: MetricRegistry, health: Health) {
        while true {
            let connection = accept(listening, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE { continue }
                return
            }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            var limit = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            let answer = respond(to: readRequest(connection), metrics: metrics, health: health)
            send(answer, to: connection)
            close(connection)
        }
    }

    /// The request's head (up to its blank line, at most 8 KiB), or nil.
    private static func readRequest(_ connection: Int32) -> String? {
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 2048)
        while head.count < 8192 {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            head.append(contentsOf: buffer[..<count])
            let text = String(decoding: head, as: UTF8.self)
            if text.contains("\r\n\r\n") || text.contains("\n\n") { return text }
        }
        return nil
    }

    /// The response to a request head: method, path and status decided here.
    static func respond(to request: String?, metrics: MetricRegistry, health: Health) -> HTTPAnswer {
        guard let request, let line = request.split(separator: "\r\n", maxSplits: 1).first else {
            return HTTPAnswer(status: 400, body: "bad request\n")
        }
        let parts = line.split(separator: " ")
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else {
            return HTTPAnswer(status: 400, body: "bad request\n")
        }
        let method = parts[0]
        let path = parts[1].split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
        guard method == "GET" || method == "HEAD" else {
            return HTTPAnswer(status: 405, body: "only GET and HEAD\n", head: method == "HEAD")
        }
        switch path {
        case "/metrics":
            metrics.sampleProcess()
            return HTTPAnswer(
                status: 200, body: metrics.exposition(), type: "text/plain; version=0.0.4; charset=utf-8",
                head: method == "HEAD")
        case "/healthz":
            if let problem = health() {
                return HTTPAnswer(status: 503, body: "unhealthy: \(problem)\n", head: method == "HEAD")
            }
            return HTTPAnswer(status: 200, body: "ok\n", head: method == "HEAD")
        default:
            return HTTPAnswer(
                status: 404, body: "not found: /metrics and /healthz are served\n", head: method == "HEAD")
        }
    }

    private static func send(_ answer: HTTPAnswer, to connection: Int32) {
        let bytes = Array(answer.bytes)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { buffer in
                Glibc.send(connection, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return }
            offset += sent
        }
    }
}

/// An HTTP/1.1 response, closed after it is sent.
struct HTTPAnswer {
    var status: Int
    var body: String
    var type = "text/plain; charset=utf-8"
    /// A HEAD request's: the head only.
    var head = false

    var bytes: [UInt8] {
        let reason =
            [200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed", 503: "Service Unavailable"][
                status] ?? "Error"
        let body = Array(body.utf8)
        var text = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\n"
        if status == 405 { text += "Allow: GET, HEAD\r\n" }
        text += "Cache-Control: no-store\r\nConnection: close\r\n\r\n"
        return Array(text.utf8) + (head ? [] : body)
    }
}
