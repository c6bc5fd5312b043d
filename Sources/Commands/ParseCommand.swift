import FeedFetch
import FeedModel
import FeedParse
import Foundation
import Glibc
import TextOutput

/// `feedmerge parse [--url URL] [--content-type TYPE] [--sanitize] FILE...`:
/// one line of normalized JSON per file, in order.
struct ParseCommand {
    static let usage = """
        usage: feedmerge parse [--url URL] [--content-type TYPE] [--sanitize] [--summary] FILE...

        Prints one JSON object per FILE, one per line, in order: the feed as
        feedmerge understands it (format, feed metadata, entries, warnings),
        or {"file": ..., "error": ...} when the file holds no feed at all.

          --url URL            the address the documents came from (base of relative links)
          --content-type TYPE  the HTTP Content-Type they came with (its charset counts)
          --sanitize           accepted; the HTML sanitizer is not built yet, so values
                               are printed as parsed (identity) for now
          --summary            print `FILE<TAB>FORMAT<TAB>ENTRIES<TAB>WARNINGS` instead of
                               the JSON (what the parse benchmark times)
        """

    var files: [String] = []
    var options = FeedParser.Options()
    var summaryOnly = false

    init(arguments: ArraySlice<String>) throws(UsageError) {
        var rest = arguments
        while let argument = rest.popFirst() {
            switch argument {
            case "--url":
                guard let value = rest.popFirst() else { throw UsageError("--url needs a value") }
                options.url = value
            case "--content-type":
                guard let value = rest.popFirst() else { throw UsageError("--content-type needs a value") }
                options.contentType = value
            case "--sanitize":
                break
            case "--summary":
                summaryOnly = true
            case "-h", "--help":
                throw UsageError(nil)
            case "--":
                files.append(contentsOf: rest)
                rest = []
            default:
                if argument.hasPrefix("-") && argument != "-" { throw UsageError("unknown option \(argument)") }
                files.append(argument)
            }
        }
        guard !files.isEmpty else { throw UsageError("no FILE given") }
    }

    func run() -> Int32 {
        var status: Int32 = 0
        for file in files {
            let line: String
            do {
                let bytes = try read(file)
                let feed = try FeedParser.parse(consume bytes, options: options)
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
        do {
            return try LocalFile.contents(of: file)
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
