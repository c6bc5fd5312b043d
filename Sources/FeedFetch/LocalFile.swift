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
        return FetchResponse(
            status: 200, finalURL: url, redirected: false, permanentlyRedirected: false, headers: ResponseHeaders(),
            body: body, timings: .init(total: 0))
    }

    public struct ReadError: Error, CustomStringConvertible {
        public var description: String
        public var tooLarge = false
    }

    /// A whole file, read straight into one array: no `Data` in between and
    /// no zero-filling first (a 20 MB feed should cost 20 MB, once).
    public static func contents(of path: String, limit: Int = .max) throws(ReadError) -> [UInt8] {
        func failure(_ what: String) -> ReadError {
            ReadError(description: "cannot \(what) \(path): \(String(cString: strerror(errno)))")
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("open") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure("stat") }
        guard (info.st_mode & S_IFMT) != S_IFDIR else { throw ReadError(description: "\(path) is a directory") }
        func tooLarge() -> ReadError { ReadError(description: "\(path) is larger than \(limit) bytes", tooLarge: true) }
        guard Int(info.st_size) <= limit else { throw tooLarge() }
        // The size is a hint (pipes and /proc files say 0): one more byte
        // shows whether the end was reached, else read on in chunks.
        var readFailed = false
        var bytes = [UInt8](unsafeUninitializedCapacity: Int(info.st_size) + 1) { buffer, count in
            while count < buffer.count {
                let got = Glibc.read(descriptor, buffer.baseAddress! + count, buffer.count - count)
                if got < 0 && errno == EINTR { continue }
                if got < 0 { readFailed = true }
                if got <= 0 { return }
                count += got
            }
        }
        guard !readFailed else { throw failure("read") }
        guard bytes.count > Int(info.st_size) else { return bytes }
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
