import Basics
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

    public typealias ListenerError = ListeningSocket.Failure

    /// Binds and listens on `HOST:PORT` (`[::1]:9464` for IPv6; a host name is resolved), then serves
    /// on its own thread for as long as the process runs.
    public init(listening on: String, metrics: MetricRegistry, health: @escaping Health) throws(ListenerError) {
        let socket = try ListeningSocket(listening: on)
        address = socket.address
        let thread = Thread {
            socket.acceptForever(limitSeconds: 5) { connection in
                let answer = Self.respond(to: Self.readRequest(connection), metrics: metrics, health: health)
                ListeningSocket.send(answer.bytes, to: connection)
            }
        }
        thread.name = "feedmerge.metrics"
        thread.start()
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
