import FeedModel
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where a long-running process's lines go, and how each is written:
///
/// - `text`: `2026-12-06T10:41:02.120Z feedmerge worker a: state lost: …`, the
///   time first (RFC 3339, UTC, milliseconds), so that a file of lines sorts by
///   time and every line says when it happened.
/// - `journal`: what standard error is when systemd connected it to the
///   journal: the same line without the time (the journal stamps each line)
///   and with its syslog priority as a `<N>` prefix, which journald reads.
///   Told by `JOURNAL_STREAM`, which systemd sets to the device and inode of
///   the stream it connected (systemd.exec(5)): it counts only while standard
///   error is still that stream, not once a shell redirected it elsewhere.
/// - `json`: one object per line with stable keys: `time`, `level`, `program`,
///   `worker` (when named), `event`, `message`, then the event's fields.
///
/// Lines are written whole with one `write(2)` each, so lines of several
/// threads never interleave.
public struct ServiceLog: Sendable {
    public enum Format: String, Sendable, CaseIterable {
        case text, journal, json
    }

    public let format: Format
    /// What begins each text line: `feedmerge worker a`.
    public let program: String
    public let worker: String?
    private let descriptor: Int32

    /// - Parameters:
    ///   - format: `json` when asked for; else nil: `journal` when standard error is the journal, else `text`.
    public init(program: String, worker: String? = nil, format: Format? = nil, descriptor: Int32 = 2) {
        self.program = program
        self.worker = worker
        self.descriptor = descriptor
        self.format = format ?? (Self.writesToJournal(descriptor) ? .journal : .text)
    }

    /// Whether `descriptor` is the stream systemd named in `JOURNAL_STREAM` (`DEVICE:INODE`).
    public static func writesToJournal(
        _ descriptor: Int32, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Bool {
        guard let stream = environment["JOURNAL_STREAM"] else { return false }
        let parts = stream.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }

    public func write(_ event: LogEvent, at time: Date = Date()) {
        var line = self.line(event, at: time)
        line.append("\n")
        var bytes = Array(line.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
        bytes.removeAll()
    }

    /// The line for `event` in this log's format, without its newline.
    public func line(_ event: LogEvent, at time: Date) -> String {
        let speaker = worker.map { "\(program) \($0)" } ?? program
        switch format {
        case .text:
            return "\(Self.rfc3339(time)) \(speaker): \(event.message)"
        case .journal:
            return "<\(event.level.syslogPriority)>\(speaker): \(event.message)"
        case .json:
            var object = "{\"time\":\(Self.json(Self.rfc3339(time))),\"level\":\(Self.json(event.level.rawValue))"
            object += ",\"program\":\(Self.json(program))"
            if let worker { object += ",\"worker\":\(Self.json(worker))" }
            object += ",\"event\":\(Self.json(event.event)),\"message\":\(Self.json(event.message))"
            let reserved: Set = ["time", "level", "program", "worker", "event", "message"]
            for (key, value) in event.fields where !reserved.contains(key) {
                object += ",\(Self.json(key)):"
                switch value {
                case .text(let text): object += Self.json(text)
                case .integer(let number): object += String(number)
                case .number(let number): object += number.isFinite ? String(number) : "null"
                }
            }
            return object + "}"
        }
    }

    /// `2026-12-06T10:41:02.120Z`.
    public static func rfc3339(_ time: Date) -> String {
        let milliseconds = Int64((time.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = milliseconds.floorDivided(by: 1000)
        let stamp = Timestamp(secondsSince1970: seconds).rfc3339
        let fraction = String(Int(milliseconds - seconds * 1000) + 1000).dropFirst()
        return stamp.dropLast() + "." + fraction + "Z"
    }

    /// A JSON string: quotes, backslashes and control characters escaped.
    static func json(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
