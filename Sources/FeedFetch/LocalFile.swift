import Foundation
import Glibc

/// Subscriptions that are files on this machine: read directly, not through libcurl.
public enum LocalFile {
    /// The path a `file://` URL or a plain path names; nil for other URLs.
    public static func path(of url: String) -> String? {
        if url.hasPrefix("file://") {
            return URL(string: url)?.path ?? String(url.dropFirst(7))
        }
        let hasScheme =
            url.firstIndex(of: ":").map { colon in
                url[..<colon].allSatisfy { $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }
                    && !url[..<colon].isEmpty
            } ?? false
        return hasScheme ? nil : url
    }

    static func read(_ path: String, url: String, limit: Int) throws(FetchError) -> FetchResponse {
        let body: [UInt8]
        do {
            body = try contents(of: path, limit: limit)
        } catch {
            throw FetchError(
                code: error.tooLarge ? .tooLarge : .file, url: url, stage: .file, message: error.description)
        }
        return response(body: body, url: url)
    }

    /// What reading `body` from `url` amounts to: a 200 with no headers.
    public static func response(body: [UInt8], url: String) -> FetchResponse {
        FetchResponse(
            status: 200, finalURL: url, redirected: false, permanentlyRedirected: false, headers: ResponseHeaders(),
            body: body, timings: .init(total: 0))
    }

    public struct ReadError: Error, CustomStringConvertible {
        public var description: String
        public var tooLarge = false

        init(description: String, tooLarge: Bool = false) {
            self.description = description
            self.tooLarge = tooLarge
        }

        /// A call that failed on `path`, with what `errno` says.
        init(failing what: String, _ path: String) {
            description = "cannot \(what) \(path): \(String(cString: strerror(errno)))"
        }
    }

    /// Why a local path named by someone other than the operator is not read.
    public static let refusal =
        "refused: local files are read only when named on the command line or in a local subscription list"

    /// A whole regular file, read straight into one array: no `Data` in
    /// between and no zero-filling first (a 20 MB feed should cost 20 MB, once).
    ///
    /// Anything but a regular file (a FIFO, a device, a socket, a folder) is
    /// refused before it is opened, and the file is opened without blocking
    /// and checked again: a FIFO with no writer cannot hold a thread, and
    /// opening a device cannot act on it.
    public static func contents(of path: String, limit: Int = .max) throws(ReadError) -> [UInt8] {
        func failure(_ what: String) -> ReadError { ReadError(failing: what, path) }
        var info = stat()
        guard stat(path, &info) == 0 else { throw failure("read") }
        if let kind = notRegular(info) { throw ReadError(description: "\(path) is \(kind), not a regular file") }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else { throw failure("open") }
        defer { close(descriptor) }
        guard fstat(descriptor, &info) == 0 else { throw failure("stat") }
        // Replaced between the two looks: judged again on what was opened.
        if let kind = notRegular(info) { throw ReadError(description: "\(path) is \(kind), not a regular file") }
        return try read(descriptor, path: path, sizeHint: Int(info.st_size), limit: limit)
    }

    /// Standard input, whatever it is (a pipe, a file, a terminal): the
    /// operator chose it by naming `-`.
    public static func standardInput(limit: Int = .max) throws(ReadError) -> [UInt8] {
        var info = stat()
        let size = fstat(0, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : 0
        return try read(0, path: "standard input", sizeHint: size, limit: limit)
    }

    /// What a file that is not a regular one is, for the message.
    private static func notRegular(_ info: stat) -> String? {
        switch info.st_mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a folder"
        case S_IFIFO: "a FIFO"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFSOCK: "a socket"
        default: "not a file"
        }
    }

    /// Reads `descriptor` to its end.
    private static func read(_ descriptor: Int32, path: String, sizeHint: Int, limit: Int) throws(ReadError)
        -> [UInt8]
    {
        func failure(_ what: String) -> ReadError { ReadError(failing: what, path) }
        func tooLarge() -> ReadError { ReadError(description: "\(path) is larger than \(limit) bytes", tooLarge: true) }
        guard sizeHint <= limit else { throw tooLarge() }
        // The size is a hint (pipes and /proc files say 0): one more byte
        // shows whether the end was reached, else read on in chunks.
        var readFailed = false
        var bytes = [UInt8](unsafeUninitializedCapacity: sizeHint + 1) { buffer, count in
            while count < buffer.count {
                let got = Glibc.read(descriptor, buffer.baseAddress! + count, buffer.count - count)
                if got < 0 && errno == EINTR { continue }
                if got < 0 { readFailed = true }
                if got <= 0 { return }
                count += got
            }
        }
        guard !readFailed else { throw failure("read") }
        guard bytes.count > sizeHint else { return bytes }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            guard bytes.count <= limit else { throw tooLarge() }
            let got = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress!, $0.count) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw failure("read") }
            if got == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<got])
        }
    }
}
