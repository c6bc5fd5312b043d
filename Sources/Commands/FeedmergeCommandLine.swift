import Foundation
import Glibc

/// The version printed by `--version` and sent in the User-Agent.
public let feedmergeVersion = "0.1.0"

let generalUsage = """
    feedmerge \(feedmergeVersion): merge many feeds into one timeline

    usage:
      feedmerge [options] SOURCE... -o OUTPUT...   merge feeds (feedmerge --help-merge)
      feedmerge parse [--url URL] [--content-type TYPE] [--sanitize] FILE...
      feedmerge fetch [--jobs N] [--per-host N] [--public-only] URL... | -
      feedmerge --version

    Commands:
      (none)   merge the feeds of the sources into RSS, Atom or JSON Feed outputs
      parse    print each feed file as normalized JSON (one line per file)
      fetch    fetch URLs concurrently; print status, size and time per URL

    Exit codes: 0 success; 1 some feeds, files or URLs failed (outputs written);
    2 usage or subscription-list error; 3 no output written.
    """



/// The command line, from the executable's `main.swift`.
public enum FeedmergeCommandLine {
    /// Runs the command `arguments` name (without the program name).
    /// - Parameter allocator: the allocator's name and version, for `--version`.
    /// - Returns: the exit status.
    public static func run(_ arguments: [String], allocator: String) async -> Int32 {
    let arguments = arguments[...]
    switch arguments.first {
    case "parse":
    do {
        let command = try ParseCommand(arguments: arguments.dropFirst())
        return (command.run())
    } catch {
        if let message = error.message { StandardOutput.error("feedmerge parse: \(message)") }
        StandardOutput.error(ParseCommand.usage)
        return 2
    }
case "fetch":
    do {
        let command = try FetchCommand(arguments: arguments.dropFirst())
        return (await command.run())
    } catch {
        if let message = error.message { StandardOutput.error("feedmerge fetch: \(message)") }
        StandardOutput.error(FetchCommand.usage)
        return 2
    }
case "--version":
    print("feedmerge \(feedmergeVersion) (\(allocator))")
case "-h", "--help":
    print(generalUsage)
    print("")
    print(MergeCommand.usage)
case "--help-merge":
    print(MergeCommand.usage)
case nil:
    StandardOutput.error(generalUsage)
    return 2
default:
    do {
        let command = try MergeCommand(arguments: arguments, environment: ProcessInfo.processInfo.environment)
        return (await command.run())
    } catch {
        if let message = error.message { StandardOutput.error("feedmerge: \(message)") }
        StandardOutput.error(MergeCommand.usage)
        return 2
    }
}

    return 0
    }
}
