import FeedEmit
import FeedFetch
import FeedModel
import FeedParse
import Foundation
import Glibc
import TextOutput

/// `feedmerge parse [--url URL] [--content-type TYPE] [--sanitize] FILE...`:
/// one line of normalized JSON per file, in order.
struct ParseCommand {
    var files: [String] = []
    var options = FeedParser.Options()
    var summaryOnly = false
    var sanitize = false

    static let interface = CommandInterface<ParseCommand>(
        name: "feedmerge parse",
        brief: "print each feed file as normalized JSON",
        synopsis: "feedmerge parse [--url URL] [--content-type TYPE] [--sanitize] [--summary] FILE...",
        summary: """
            Prints one JSON object per FILE (- for standard input), one per line, in order:
            the feed as feedmerge understands it (format, feed metadata, entries, warnings),
            or {"file": ..., "error": ...} when the file holds no feed at all.
            """,
        groups: [
            OptionGroup(
                "Options",
                [
                    Option("--url", value: "URL", help: "the address the documents came from (base of relative links)") {
                        $0.options.url = $1
                    },
                    Option(
                        "--content-type", value: "TYPE", help: "the HTTP Content-Type they came with (its charset counts)"
                    ) { $0.options.contentType = $1 },
                    Option(
                        "--sanitize",
                        help: "pass HTML and XHTML titles, summaries, contents and rights\nthrough the HTML sanitizer"
                    ) { command, _ in command.sanitize = true },
                    Option(
                        "--summary",
                        help: "print FILE<TAB>FORMAT<TAB>ENTRIES<TAB>WARNINGS instead of\nthe JSON (what the parse benchmark times)"
                    ) { command, _ in command.summaryOnly = true },
                ])
        ],
        operandName: "FILE",
        operand: { command, file in command.files.append(file) },
        notes: "Exit status: 0 every file parsed; 1 some did not; 2 usage error.")

    static func parse(_ arguments: some Sequence<String>) throws(UsageError) -> Request<ParseCommand> {
        let request = try interface.parse(arguments, into: ParseCommand())
        if case .run(let command) = request, command.files.isEmpty { throw UsageError("no FILE given") }
        return request
    }

    func run() -> Int32 {
        var status: Int32 = 0
        for file in files {
            let line: String
            do {
                let bytes = try read(file)
                let parsed = try FeedParser.parse(consume bytes, options: options)
                let feed = sanitize ? parsed.sanitized() : parsed
                line =
                    summaryOnly
                    ? "\(file)\t\(feed.format.rawValue)\t\(feed.entries.count)\t\(feed.warnings.count)"
                    : feed.normalizedJSON(file: file)
            } catch {
                let message = (error as? ParseError)?.description ?? (error as? ReadFailure)?.description ?? "\(error)"
                line = summaryOnly ? "\(file)\terror\t\(message)" : errorJSON(file: file, message: message)
                status = 1
            }
            StandardOutput.write(line + "\n")
        }
        return status
    }

    private func read(_ file: String) throws(ReadFailure) -> [UInt8] {
        if file == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        let path = LocalFile.path(of: file) ?? file
        if path == file && file.contains("://") {
            throw ReadFailure(
                description: "parse reads files, and \(file) is a URL: download it first (feedmerge fetch "
                    + "shows what it answers), then give --url \(file) so its links resolve")
        }
        do {
            return try LocalFile.contents(of: path)
        } catch {
            throw ReadFailure(description: error.description)
        }
    }

    private func errorJSON(file: String, message: String) -> String {
        var json = JSONWriter()
        json.beginObject()
        json.field("file", file)
        json.field("error", message)
        json.endObject()
        return json.text
    }
}

struct ReadFailure: Error, CustomStringConvertible {
    var description: String
}
