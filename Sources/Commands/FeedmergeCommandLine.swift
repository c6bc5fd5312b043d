import FeedFetch
import Foundation

/// The version printed by `--version` and sent in the User-Agent.
public let feedmergeVersion = "0.1.0"

/// The command line: which command, its options, its help, its exit
/// status. The executable's `main.swift` calls `run` and exits with what
/// it returns; nothing else in feedmerge ends the process.
public enum FeedmergeCommandLine {
    static let overview = """
        feedmerge \(feedmergeVersion): merge many feeds into one timeline

        usage:
          feedmerge [options] SOURCE... -o OUTPUT...   \(MergeOptions.interface.brief)
          feedmerge planet [options] CONFIG.ini       \(PlanetCommand.interface.brief)
          feedmerge worker --state DB [options] SOURCE...
                                                      \(WorkerCommand.interface.brief)
          feedmerge render --state STATE [options] SOURCE... -o OUTPUT...
                                                      \(RenderCommand.interface.brief)
          feedmerge parse [options] FILE...           \(ParseCommand.interface.brief)
          feedmerge fetch [options] URL... | -        \(FetchCommand.interface.brief)
          feedmerge state copy FROM TO                \(StateCommand.interface.brief)
          feedmerge key new FILE | key directory [options] KEYFILE...
                                                      \(KeyCommand.interface.brief)
          feedmerge --version
          feedmerge [COMMAND] --help
          feedmerge help [COMMAND]                    \(HelpCommand.interface.brief)
          feedmerge --generate-man [--doc-dir DIR]    print the manual page feedmerge(1) (roff)
          feedmerge --generate-completion SHELL       print the completion script for bash, zsh or fish
        """

    /// Runs what `arguments` (without the program name) ask for.
    /// - Parameter allocator: the allocator the executable links.
    public static func run(
        _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        allocator: LinkedAllocator
    ) async -> Int32 {
        // Idle connections kept for reuse are open files: make room for them (see `FetchConfiguration`).
        OpenFileLimit.raise()
        Termination.install()
        // A run that ends while a signal is ending the process ends with the signal's status.
        return Termination.settled(await dispatch(arguments, environment: environment, allocator: allocator))
    }

    private static func dispatch(
        _ arguments: [String], environment: [String: String], allocator: LinkedAllocator
    ) async
        -> Int32
    {
        switch arguments.first {
        case "parse":
            return await run(
                try ParseCommand.parse(arguments.dropFirst()), help: ParseCommand.interface, ParseCommand()
            ) {
                $0.run()
            }
        case "fetch":
            return await run(
                try FetchCommand.parse(arguments.dropFirst()), help: FetchCommand.interface, FetchCommand()
            ) {
                await $0.run()
            }
        case "planet":
            return await run(
                try PlanetCommand.parse(arguments.dropFirst()), help: PlanetCommand.interface, PlanetCommand()
            ) { await $0.run(environment: environment) }
        case "worker":
            return await run(
                try WorkerCommand.parse(arguments.dropFirst()), help: WorkerCommand.interface, WorkerCommand()
            ) { await $0.run() }
        case "render":
            return await run(
                try RenderCommand.parse(arguments.dropFirst()), help: RenderCommand.interface, MergeOptions()
            ) { options in
                var run: MergeRun
                do throws(UsageError) {
                    run = try MergeRun(options: options, environment: environment)
                } catch {
                    return usageError(error, command: RenderCommand.interface.name)
                }
                run.releaseFreedMemory = allocator.releaseFreed
                return await run.run().rawValue
            }
        case "state":
            return await run(
                try StateCommand.parse(arguments.dropFirst()), help: StateCommand.interface, StateCommand()
            ) {
                $0.run()
            }
        case "key":
            return await run(try KeyCommand.parse(arguments.dropFirst()), help: KeyCommand.interface, KeyCommand()) {
                $0.run()
            }
        case "help":
            return await run(
                try HelpCommand.parse(arguments.dropFirst()), help: HelpCommand.interface, HelpCommand()
            ) {
                print(help(of: $0.operands.first))
                return ExitStatus.success.rawValue
            }
        case "--version":
            guard arguments.count == 1 else {
                return usageError(UsageError("--version takes nothing else"), command: "feedmerge")
            }
            print("feedmerge \(feedmergeVersion) (\(allocator.version))")
            return ExitStatus.success.rawValue
        case "--generate-man":
            var rest = Array(arguments.dropFirst())
            if let first = rest.first, first.hasPrefix("--doc-dir=") {
                rest = ["--doc-dir", String(first.dropFirst("--doc-dir=".count))] + rest.dropFirst()
            }
            guard rest.isEmpty || rest.count == 2 && rest[0] == "--doc-dir" && rest[1].hasPrefix("/") else {
                let error = UsageError("--generate-man takes only --doc-dir DIR, an absolute path")
                return usageError(error, command: "feedmerge")
            }
            StandardOutput.write(rest.count == 2 ? ManPage.render(documents: rest[1]) : ManPage.render())
            return ExitStatus.success.rawValue
        case let first? where first == "--generate-completion" || first.hasPrefix("--generate-completion="):
            let words = first.split(separator: "=", maxSplits: 1).dropFirst().map(String.init) + arguments.dropFirst()
            guard words.count == 1, let script = CompletionScript(rawValue: words[0]) else {
                let error = UsageError("--generate-completion takes one shell: bash, zsh or fish")
                return usageError(error, command: "feedmerge")
            }
            StandardOutput.write(script.render())
            return ExitStatus.success.rawValue
        case nil:
            StandardOutput.error(overview)
            StandardOutput.error("\nTry 'feedmerge --help'.")
            return ExitStatus.usage.rawValue
        default:
            let request: Request<MergeOptions>
            let run: MergeRun
            do {
                request = try MergeOptions.parse(arguments)
                guard case .run(let options) = request else {
                    print(help(of: nil))
                    return ExitStatus.success.rawValue
                }
                run = try MergeRun(options: options, environment: environment)
            } catch {
                return usageError(error, command: "feedmerge")
            }
            return await run.run().rawValue
        }
    }

    /// What `feedmerge COMMAND --help` prints; with no command (or one it does not know),
    /// the overview and the main command's help.
    static func help(of command: String?) -> String {
        switch command {
        case "planet": PlanetCommand.interface.help(defaults: PlanetCommand())
        case "worker": WorkerCommand.interface.help(defaults: WorkerCommand())
        case "render": RenderCommand.interface.help(defaults: MergeOptions())
        case "parse": ParseCommand.interface.help(defaults: ParseCommand())
        case "fetch": FetchCommand.interface.help(defaults: FetchCommand())
        case "state": StateCommand.interface.help(defaults: StateCommand())
        case "key": KeyCommand.interface.help(defaults: KeyCommand())
        case "help": HelpCommand.interface.help(defaults: HelpCommand())
        default: overview + "\n\n" + MergeOptions.interface.help(defaults: MergeOptions())
        }
    }

    /// A subcommand: its help, or its run, or its usage error.
    private static func run<Command>(
        _ parsed: @autoclosure () throws(UsageError) -> Request<Command>, help interface: CommandInterface<Command>,
        _ defaults: Command, _ body: (Command) async -> Int32
    ) async -> Int32 {
        do {
            switch try parsed() {
            case .help:
                print(interface.help(defaults: defaults))
                return ExitStatus.success.rawValue
            case .run(let command):
                return await body(command)
            }
        } catch {
            return usageError(error, command: interface.name)
        }
    }

    /// One line saying what is wrong, one saying where to read more.
    private static func usageError(_ error: UsageError, command: String) -> Int32 {
        StandardOutput.error("\(command): \(error.message)")
        StandardOutput.error("Try '\(command) --help'.")
        return ExitStatus.usage.rawValue
    }
}
