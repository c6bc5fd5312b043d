import Foundation

/// Subscriptions that are files on this machine: read directly, not through libcurl.
enum LocalFile {
    /// The path a `file://` URL or a plain path names; nil for other URLs.
    static func path(of url: String) -> String? {
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
        func failure(_ message: String) -> FetchError {
            FetchError(code: .file, url: url, stage: .file, message: message)
        }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw failure("cannot open \(path)") }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: limit + 1) ?? Data()
        } catch {
            throw failure("cannot read \(path): \(error.localizedDescription)")
        }
        guard data.count <= limit else {
            throw FetchError(code: .tooLarge, url: url, stage: .file, message: "file larger than \(limit) bytes")
        }
        return FetchResponse(
            status: 200, finalURL: url, redirected: false, permanentlyRedirected: false, headers: ResponseHeaders(),
            body: [UInt8](data), timings: .init(total: 0, firstByte: 0, queued: 0))
    }
}
