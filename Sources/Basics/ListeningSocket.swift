#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A TCP socket bound and listening on `HOST:PORT`, and the few calls a small HTTP/1.1
/// endpoint makes on it (a worker's `/metrics`, its WebSub callback). The caller gives it a
/// thread of its own (`acceptForever` does not return).
public struct ListeningSocket: Sendable {
    public let descriptor: Int32
    /// The address as bound (`127.0.0.1:9464`; the port the system chose for port 0).
    public let address: String

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// Binds and listens on `HOST:PORT` (`[::1]:9464` for IPv6; a host name is resolved).
    public init(listening on: String) throws(Failure) {
        let (host, port) = try Self.split(on)
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, port, &hints, &found)
        guard status == 0, let first = found else {
            throw Failure("\(on): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(found) }
        let fd = socket(first.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure("\(on): socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0, listen(fd, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Failure("\(on): \(reason)")
        }
        descriptor = fd
        address = Self.boundAddress(fd) ?? on
    }

    /// `HOST:PORT` or `[V6]:PORT` into its parts.
    public static func split(_ address: String) throws(Failure) -> (host: String, port: String) {
        guard let colon = address.lastIndex(of: ":") else {
            throw Failure("\(address): not HOST:PORT (127.0.0.1:9464, [::1]:9464)")
        }
        var host = String(address[..<colon])
        let port = String(address[address.index(after: colon)...])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, let number = UInt16(port), String(number) == port else {
            throw Failure("\(address): not HOST:PORT (127.0.0.1:9464, [::1]:9464)")
        }
        return (host, port)
    }

    /// Takes connections one at a time for as long as the process runs: each gets `seconds`
    /// to send its request and read the answer, is given to `handle`, and is closed after.
    public func acceptForever(limitSeconds seconds: Int, _ handle: (Int32) -> Void) {
        handOffForever(limitSeconds: seconds) { connection in
            handle(connection)
            close(connection)
        }
    }

    /// Takes connections for as long as the process runs, each with `seconds` to send its
    /// request and read the answer, and hands each to `handOff`, which owns it from then on
    /// (and closes it).
    public func handOffForever(limitSeconds seconds: Int, _ handOff: (Int32) -> Void) {
        while true {
            let connection = accept(descriptor, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE { continue }
                return
            }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            var limit = timeval(tv_sec: seconds, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            handOff(connection)
        }
    }

    /// Sends every byte (or as many as the peer takes before it fails or the limit passes).
    public static func send(_ bytes: [UInt8], to connection: Int32) {
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
}
