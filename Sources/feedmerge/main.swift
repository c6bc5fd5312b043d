import Glibc

/// The version printed by `--version` and sent in the User-Agent.
let feedmergeVersion = "0.1.0"

let generalUsage = """
    feedmerge \(feedmergeVersion): merge many feeds into one timeline

    usage:
      feedmerge parse [--url URL] [--content-type TYPE] [--sanitize] FILE...
      feedmerge fetch [--jobs N] [--per-host N] [--public-only] URL... | -
      feedmerge --version

    Commands:
      parse    print each feed file as normalized JSON (one line per file)
      fetch    fetch URLs concurrently; print status, size and time per URL

    Exit codes: 0 success; 1 some files held no feed or some URLs failed;
    2 usage error.
    Merging (feedmerge SOURCES -o OUTPUT) is not built yet.
    """

let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "parse":
    do {
        let command = try ParseCommand(arguments: arguments.dropFirst())
        exit(command.run())
    } catch {
        if let message = error.message { StandardOutput.error("feedmerge parse: \(message)") }
        StandardOutput.error(ParseCommand.usage)
        exit(2)
    }
case "fetch":
    do {
        let command = try FetchCommand(arguments: arguments.dropFirst())
        exit(await command.run())
    } catch {
        if let message = error.message { StandardOutput.error("feedmerge fetch: \(message)") }
        StandardOutput.error(FetchCommand.usage)
        exit(2)
    }
case "--version":
    print("feedmerge \(feedmergeVersion)")
case "-h", "--help":
    print(generalUsage)
default:
    StandardOutput.error(generalUsage)
    exit(2)
}
