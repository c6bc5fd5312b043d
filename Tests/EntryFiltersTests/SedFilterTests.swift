import EntryFilters
import FeedModel
import FeedParse
import Foundation
import TestSupport
import Testing

/// `.sed` filters, run by sed as Venus runs them (`sed -f FILE`, the
/// document on standard input), with GNU sed's `--sandbox` and a time limit.
@Suite struct SedFilterTests {
    static let stripAd = SharedCorpora.path("venus/filters/stripAd")?.path ?? ""
    static let hasStripAd = FileManager.default.fileExists(atPath: stripAd)

    func script(_ text: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("filter.sed").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// What `sed -f FILE` itself writes (Venus's `shell/sed.py`).
    func venusSed(_ path: String, _ input: String) async throws -> String {
        try await #require(ExternalProgram("sed")).run(["-f", path], input: input).standardOutput
    }

    static let ads = [
        // Venus's tests/data/filter/stripAd-yahoo.xml
        (
            "yahoo.sed",
            "<entry xmlns=\"http://www.w3.org/2005/Atom\">\n  <content><div xmlns=\"http://wwww.w3.org/1999/xhtml\">"
                + "before-<p><!-- begin(Yahoo ad) -->ad content here<!-- end(Yahoo ad) --></p>-after</div></content>\n</entry>\n"
        ),
        (
            "feedburner.sed",
            "<entry><content><div>kept<p><a href=\"http://feeds.example.com/~a/abc?a=x1\"><img border=\"0\" "
                + "src=\"http://feeds.example.com/~a/abc?i=x1\"/></a></p>kept</div></content></entry>\n"
        ),
        (
            "google_ad_map.sed",
            "<entry><content><div>kept<p><map name=\"google_ad_map_1\">ad</map></p>!</div></content></entry>\n"
        ),
    ]

    @Test(.tags(.corpus), .enabled(if: hasStripAd, "needs ../shared/corpora/venus"))
    func stripAdScriptsGiveWhatSedGives() async throws {
        let expected = [
            "<entry xmlns=\"http://www.w3.org/2005/Atom\">\n  <content><div xmlns=\"http://wwww.w3.org/1999/xhtml\">"
                + "before--after</div></content>\n</entry>\n",
            "<entry><content><div>keptkept</div></content></entry>\n",
            "<entry><content><div>kept!</div></content></entry>\n",
        ]
        for ((name, input), expected) in zip(Self.ads, expected) {
            let path = Self.stripAd + "/" + name
            let filter = try DocumentFilter.sed(path: path, timeLimit: 10)
            #expect(filter.apply(to: input) == .text(expected), "\(name)")
            #expect(expected == (try await venusSed(path, input)), "\(name): what sed -f gives")
            #expect(filter.apply(to: "<entry><content>no ad</content></entry>\n") == .unchanged)
        }
    }

    @Test func aScriptThatWouldWriteAFileOrRunACommandIsRefused() throws {
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("sed-\(UUID().uuidString)").path
        for text in ["w \(target)\n", "s/a/b/w \(target)\n", "1e touch \(target)\n", "r /etc/passwd\n"] {
            let filter = try DocumentFilter.sed(path: try script(text), timeLimit: 10)
            guard case .failed = filter.apply(to: "a\n") else {
                Issue.record("\(text) ran")
                continue
            }
            #expect(!FileManager.default.fileExists(atPath: target))
        }
    }

    @Test func aScriptThatRunsPastItsTimeIsStoppedAndNotRunAgain() throws {
        let filter = try DocumentFilter.sed(path: try script(":a\nba\n"), timeLimit: 0.5)
        let start = Date()
        #expect(filter.apply(to: "a\n") == .stopped(now: true))
        #expect(Date().timeIntervalSince(start) < 5)
        #expect(filter.apply(to: "a\n") == .stopped(now: false))
    }

    @Test func aLargeDocumentGoesThroughWhole() throws {
        // More than a socket's buffer each way: sed writes while it is still being fed.
        let line = String(repeating: "x", count: 99) + "\n"
        let input = String(repeating: line, count: 20_000)
        let filter = try DocumentFilter.sed(path: try script("s/x/y/\n"), timeLimit: 30)
        #expect(filter.apply(to: input) == .text(String(repeating: "y" + line.dropFirst(), count: 20_000)))
        #expect(filter.apply(to: "") == .unchanged)
        #expect(try DocumentFilter.sed(path: try script("d\n"), timeLimit: 10).apply(to: "a\nb\n") == .empty)
    }

    @Test func aMissingScriptIsRefusedAtSetup() {
        #expect(throws: EntryFilterError.self) { try DocumentFilter.sed(path: "/nonexistent/x.sed", timeLimit: 1) }
    }
}
