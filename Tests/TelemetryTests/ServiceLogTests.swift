import Foundation
import Telemetry
import Testing

/// A service's lines: timed text, the journal's form only where standard
/// error is the journal's stream, and one JSON object per line.
@Suite struct ServiceLogTests {
    static let event = LogEvent(
        .warning, "feed_failed", "failed: http://a.example/feed: HTTP 500",
        [("url", "http://a.example/feed"), ("http_status", 500), ("ratio", .number(0.5))])
    static let time = Date(timeIntervalSince1970: 1_796_553_056.0425)

    @Test func aTextLineBeginsWithItsTimeInRFC3339UTC() {
        let log = ServiceLog(program: "feedmerge worker", worker: "a", format: .text)
        #expect(
            log.line(Self.event, at: Self.time)
                == "2026-12-06T10:30:56.042Z feedmerge worker a: failed: http://a.example/feed: HTTP 500")
    }

    @Test func theJournalsLineHasItsPriorityAndNoTime() {
        let log = ServiceLog(program: "feedmerge worker", worker: "a", format: .journal)
        #expect(log.line(Self.event, at: Self.time) == "<4>feedmerge worker a: failed: http://a.example/feed: HTTP 500")
    }

    @Test func aJSONLineIsOneObjectWithStableKeys() throws {
        let log = ServiceLog(program: "feedmerge worker", worker: "a\"b", format: .json)
        var event = Self.event
        event.message += "\n\u{1}\t\\"
        let line = log.line(event, at: Self.time)
        #expect(!line.contains("\n"))
        let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["time"] as? String == "2026-12-06T10:30:56.042Z")
        #expect(object["level"] as? String == "warning")
        #expect(object["program"] as? String == "feedmerge worker")
        #expect(object["worker"] as? String == "a\"b")
        #expect(object["event"] as? String == "feed_failed")
        #expect(object["message"] as? String == "failed: http://a.example/feed: HTTP 500\n\u{1}\t\\")
        #expect(object["url"] as? String == "http://a.example/feed")
        #expect(object["http_status"] as? Int == 500)
        #expect(object["ratio"] as? Double == 0.5)
        #expect(line.hasPrefix("{\"time\":"))
    }

    /// `JOURNAL_STREAM` names a device and an inode: only a descriptor that is that very file counts.
    @Test func theJournalIsToldByTheStreamsDeviceAndInode() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let descriptor = open(path, O_WRONLY)
        defer { close(descriptor) }
        var status = stat()
        #expect(fstat(descriptor, &status) == 0)
        let named = ["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino)"]
        #expect(ServiceLog.writesToJournal(descriptor, environment: named))
        #expect(!ServiceLog.writesToJournal(descriptor, environment: ["JOURNAL_STREAM": "\(status.st_dev):1"]))
        #expect(!ServiceLog.writesToJournal(descriptor, environment: [:]))
        #expect(!ServiceLog.writesToJournal(descriptor, environment: ["JOURNAL_STREAM": "nonsense"]))
    }
}
