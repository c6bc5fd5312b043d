import FeedEmit
import FeedModel
import FeedParse
import Foundation
import Testing

/// Fixture pairs: `Fixtures/<format>/<case>.xml` (or `.json`) beside
/// `<case>.expected.json`, the normalized JSON `feedmerge parse` prints.
/// `RECORD_FIXTURES=1 swift test` rewrites the expectations and fails; review the diff.
@Suite struct FixtureTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static var cases: [String] {
        let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        return files.filter { ($0.hasSuffix(".xml") || $0.hasSuffix(".json")) && !$0.hasSuffix(".expected.json") }
            .sorted()
    }

    @Test(arguments: cases)
    func parsesAsRecorded(_ path: String) throws {
        let input = Self.folder.appendingPathComponent(path)
        let bytes = try [UInt8](Data(contentsOf: input))
        let parsed = try FeedParser.parse(bytes, options: .init(url: "http://example.org/feeds/\(path)"))
        let expectedFormat = path.split(separator: "/").first.map(String.init) ?? ""
        #expect(parsed.format.rawValue.hasPrefix(expectedFormat))
        let json = parsed.normalizedJSON(file: path)
        let expectedURL = input.deletingPathExtension().appendingPathExtension("expected.json")
        let actual = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? NSDictionary
        if ProcessInfo.processInfo.environment["RECORD_FIXTURES"] != nil {
            let pretty = try JSONSerialization.data(
                withJSONObject: actual as Any, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            try pretty.write(to: expectedURL)
            // A recording run never passes: the new file is reviewed, then the test run again without it.
            Issue.record("recorded \(expectedURL.lastPathComponent); review the diff, then run without RECORD_FIXTURES")
            return
        }
        let expected = try JSONSerialization.jsonObject(with: Data(contentsOf: expectedURL)) as? NSDictionary
        #expect(actual == expected, "\(path): parse output differs from \(expectedURL.lastPathComponent)")
    }
}
