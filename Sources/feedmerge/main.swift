import Glibc

/// The version printed by `--version` and sent in the User-Agent.
let feedmergeVersion = "0.1.0"

let generalUsage = """
    feedmerge \(feedmergeVersion): merge many feeds into one timeline

    usage:
      feedmerge parse [--url URL] [--content-type TYPE] [--sanitize] FILE...
      feedmerge --version

    Commands:
      parse    print each feed file as normalized JSON (one line per file)

    Exit codes: 0 success; 1 some files held no feed; 2 usage error.
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
case "--version":
    print("feedmerge \(feedmergeVersion)")
case "-h", "--help":
    print(generalUsage)
default:
    StandardOutput.error(generalUsage)
    exit(2)
}
