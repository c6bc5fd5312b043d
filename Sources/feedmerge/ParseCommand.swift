import FeedModel
import FeedParse
import Foundation

/// `feedmerge parse [--url URL] [--content-type TYPE] [--sanitize] FILE...`:
/// one line of normalized JSON per file, in order.
struct ParseCommand {
    static let usage = """
        usage: feedmerge parse [--url URL] [--content-type TYPE] [--sanitize] FILE...

        Prints one JSON object per FILE, one per line, in order: the feed as
        feedmerge understands it (format, feed metadata, entries, warnings),
        or {"file": ..., "error": ...} when the file holds no feed at all.

          --url URL            the address the documents came from (base of relative links)
          --content-type TYPE  the HTTP Content-Type they came with (its charset counts)
          --sanitize           accepted; the HTML sanitizer is not built yet, so values
                               are printed as parsed (identity) for now
        """

    var files: [String] = []
    var options = FeedParser.Options()

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
            switch read(file) {
            case .success(let bytes):
                do {
                    line = try FeedParser.parse(bytes, options: options).normalizedJSON(file: file)
                } catch {
                    line = errorJSON(file: file, message: error.description)
                    status = 1
                }
            case .failure(let message):
                line = errorJSON(file: file, message: message.description)
                status = 1
            }
            StandardOutput.write(line + "\n")
        }
        return status
    }

    private func read(_ file: String) -> Result<[UInt8], ReadFailure> {
        if file == "-" { return .success(Array(FileHandle.standardInput.readDataToEndOfFile())) }
        guard let data = FileManager.default.contents(atPath: file) else {
            return .failure(ReadFailure(description: "cannot read \(file)"))
        }
        return .success([UInt8](data))
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

struct ReadFailure: Error {
    var description: String
}
