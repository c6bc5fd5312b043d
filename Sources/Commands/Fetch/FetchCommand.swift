import Basics
import FeedFetch
import Foundation

/// `feedmerge fetch [options] URL...` (or `-` to read URLs from stdin):
/// fetches every URL concurrently and prints one line per URL, in input
/// order: `URL<TAB>STATUS<TAB>BYTES<TAB>SECONDS<TAB>FINAL-URL`, or
/// `URL<TAB>error<TAB>MESSAGE`. What the fetch benchmark times; also a
/// quick way to see which feeds of a list are broken.
struct FetchCommand {
    var urls: [String] = []
    var configuration = FetchConfiguration.polite(userAgent: "feedmerge/\(feedmergeVersion)")

    static let interface = CommandInterface<FetchCommand>(
        name: "feedmerge fetch",
        brief: "fetch URLs; print status, size and time of each",
        synopsis: "feedmerge fetch [options] URL... | -",
        summary: """
            Fetches every URL at once and prints one line per URL, in order:
            URL<TAB>STATUS<TAB>BYTES<TAB>SECONDS<TAB>FINAL-URL, or URL<TAB>error<TAB>MESSAGE.
            - reads the URLs from standard input, one per line (# comments).
            """,
        groups: [FetchOptions.group(\.configuration, maxBytesHelp: "largest decoded body accepted")],
        operandName: "URL",
        operand: { command, url in
            if url == "-" && command.urls.contains("-") { throw UsageError("- (standard input) is given twice") }
            command.urls.append(url)
        },
        notes: "Exit status: 0 every URL fetched; 1 some failed; 2 usage error.")

    /// The URLs on standard input, one per line (blank lines and `#` comments skipped).
    private static func standardInputURLs() -> [String] {
        var urls: [String] = []
        while let line = readLine() {
            let url = line.trimmingWhitespace
            if !url.isEmpty && !url.hasPrefix("#") { urls.append(url) }
        }
        return urls
    }

    static func parse(_ arguments: some Sequence<String>) throws(UsageError) -> Request<FetchCommand> {
        let request = try interface.parse(arguments, into: FetchCommand())
        if case .run(let command) = request, command.urls.isEmpty { throw UsageError("no URL given") }
        if case .run(let command) = request { try FetchOptions.check(command.configuration) }
        return request
    }

    func run() async -> Int32 {
        // Standard input is read once the command line is known to be good.
        // Named on the command line, a local path is the operator's to read; a list on standard
        // input names web addresses only, like any list that may come from elsewhere.
        let urls: [(url: String, named: Bool)] = self.urls.flatMap { url in
            url == "-" ? Self.standardInputURLs().map { ($0, false) } : [(url, true)]
        }
        let client = HTTPClient(configuration: configuration)
        var lines = [String](repeating: "", count: urls.count)
        var failures = 0
        await withTaskGroup(of: (Int, String, Bool).self) { group in
            for (index, (url, named)) in urls.enumerated() {
                group.addTask {
                    do {
                        let response = try await client.fetch(FetchRequest(url: url, mayReadLocalFile: named))
                        let seconds = String(format: "%.3f", response.timings.total)
                        return (
                            index,
                            "\(url)\t\(response.status)\t\(response.body.count)\t\(seconds)\t\(response.finalURL)", true
                        )
                    } catch {
                        return (index, "\(url)\terror\t\((error as? FetchError)?.message ?? "\(error)")", false)
                    }
                }
            }
            for await (index, line, ok) in group {
                lines[index] = line
                if !ok { failures += 1 }
            }
        }
        StandardOutput.write(lines.joined(separator: "\n") + "\n")
        return failures == 0 ? 0 : 1
    }
}
