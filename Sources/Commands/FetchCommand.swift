import FeedFetch
import Foundation

/// `feedmerge fetch [options] URL...` (or `-` to read URLs from stdin):
/// fetches every URL concurrently and prints one line per URL, in input
/// order: `URL<TAB>STATUS<TAB>BYTES<TAB>SECONDS<TAB>FINAL-URL`, or
/// `URL<TAB>error<TAB>MESSAGE`. What the fetch benchmark times; also a
/// quick way to see which feeds of a list are broken.
struct FetchCommand {
    static let usage = """
        usage: feedmerge fetch [--jobs N] [--per-host N] [--max-bytes N] [--timeout S]
                               [--public-only] URL... | -

          --jobs N        transfers in flight at once (default 32)
          --per-host N    transfers in flight per host (default 4)
          --max-bytes N   largest decoded body accepted (default 16 MiB)
          --timeout S     total seconds per transfer (default 60)
          --public-only   refuse loopback, private and link-local addresses
          -               read the URLs from standard input, one per line
        """

    var urls: [String] = []
    var configuration = FetchConfiguration(
        userAgent: "feedmerge/\(feedmergeVersion) (+https://github.com/feedmerge/feedmerge)")

    init(arguments: ArraySlice<String>) throws(UsageError) {
        var rest = arguments
        func number(_ option: String) throws(UsageError) -> Int {
            guard let text = rest.popFirst(), let value = Int(text), value > 0 else {
                throw UsageError("\(option) needs a positive number")
            }
            return value
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--jobs": configuration.maximumConcurrentTransfers = try number(argument)
            case "--per-host": configuration.maximumTransfersPerHost = try number(argument)
            case "--max-bytes": configuration.maximumBodyBytes = try number(argument)
            case "--timeout": configuration.totalTimeoutSeconds = try number(argument)
            case "--public-only": configuration.addressPolicy = .publicOnly
            case "-h", "--help": throw UsageError(nil)
            case "-":
                while let line = readLine() {
                    let url = line.trimmingCharacters(in: .whitespaces)
                    if !url.isEmpty && !url.hasPrefix("#") { urls.append(url) }
                }
            default:
                if argument.hasPrefix("--") { throw UsageError("unknown option \(argument)") }
                urls.append(argument)
            }
        }
        guard !urls.isEmpty else { throw UsageError("no URL given") }
    }

    func run() async -> Int32 {
        let client = HTTPClient(configuration: configuration)
        var lines = [String](repeating: "", count: urls.count)
        var failures = 0
        await withTaskGroup(of: (Int, String, Bool).self) { group in
            for (index, url) in urls.enumerated() {
                group.addTask {
                    do {
                        let response = try await client.fetch(FetchRequest(url: url))
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
