import Basics

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTP/1.1 request to the callback, as read from its connection: a
/// body only by `Content-Length` (a hub's delivery), at most a cap.
struct CallbackRequest {
    var method: String
    /// The path, without its query.
    var path: String
    /// The query's fields, decoded (`hub.challenge`, …): the first of a repeated name.
    var query: [String: String]
    /// Header fields by lowercase name (a repeated one joined with commas).
    var headers: [String: String]
    var body: [UInt8]

    enum Problem: Error {
        case malformed, tooLarge, lengthRequired
    }

    /// Reads a request from `connection`: its head (at most 16 KiB), then its body.
    static func read(_ connection: Int32, maximumBodyBytes: Int) throws(Problem) -> CallbackRequest {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var headEnd: Int?
        while headEnd == nil {
            guard bytes.count < 16_384 else { throw .malformed }
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { throw .malformed }
            bytes.append(contentsOf: buffer[..<count])
            headEnd = Self.endOfHead(bytes)
        }
        let head = String(decoding: bytes[..<headEnd!], as: UTF8.self)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let parts = lines.removeFirst().split(separator: " ")
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else { throw .malformed }
        var headers: [String: String] = [:]
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw .malformed }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingWhitespace
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        let target = String(parts[1])
        let question = target.firstIndex(of: "?")
        var request = CallbackRequest(
            method: String(parts[0]), path: String(target[..<(question ?? target.endIndex)]),
            query: question.map { Self.form(String(target[target.index(after: $0)...])) } ?? [:], headers: headers,
            body: Array(bytes[(headEnd! + 4)...]))
        if headers["transfer-encoding"] != nil { throw .lengthRequired }
        let length = headers["content-length"].map { Int($0) } ?? 0
        guard let length, length >= 0 else { throw .malformed }
        guard length <= maximumBodyBytes else { throw .tooLarge }
        while request.body.count < length {
            let count = recv(connection, &buffer, min(buffer.count, length - request.body.count), 0)
            guard count > 0 else { throw .malformed }
            request.body.append(contentsOf: buffer[..<count])
        }
        if request.body.count > length { request.body.removeLast(request.body.count - length) }
        return request
    }

    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    /// `application/x-www-form-urlencoded` fields (a query string).
    static func form(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decode(String(parts[0]))
            if fields[name] == nil { fields[name] = parts.count > 1 ? decode(String(parts[1])) : "" }
        }
        return fields
    }

    private static func decode(_ text: String) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The callback's answer, closed after it is sent.
struct CallbackAnswer {
    var status: Int
    var body: String = ""

    var bytes: [UInt8] {
        let reasons = [
            200: "OK", 202: "Accepted", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
            410: "Gone", 411: "Length Required", 413: "Content Too Large",
        ]
        let body = Array(body.utf8)
        let head =
            "HTTP/1.1 \(status) \(reasons[status] ?? "Error")\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.count)\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + body
    }
}
