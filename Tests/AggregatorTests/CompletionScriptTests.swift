import Foundation
import TestSupport
import Testing

@testable import Commands

/// The bash, zsh and fish completions: every declared option in each, and
/// each shell completing from the script the binary prints.
@Suite struct CompletionScriptTests {
    static let bash = ExternalProgram("bash")
    static let zsh = ExternalProgram("zsh")
    static let fish = ExternalProgram("fish")

    /// Every (command, option name) pair, the command as its word (nil: the main one).
    static let everyName = CommandReference.all.flatMap { command in
        command.entries.flatMap(\.names).map { (command: command.word, name: $0) }
    }

    @Test(arguments: CompletionScript.allCases)
    func everyOptionOfEveryCommandIsInTheScript(_ shell: CompletionScript) {
        let lines = shell.render().split(separator: "\n").map(String.init)
        for (command, name) in Self.everyName {
            let found: Bool
            switch shell {
            case .bash:
                let list = lines.first { $0.contains("\(command ?? "merge")) _feedmerge_words '-") }
                found = list?.split(separator: "'")[1].split(separator: " ").contains { $0 == name } == true
            case .zsh:
                let spec = lines.first { $0.contains("'*\(name)[") || $0.contains("'*\(name)=[") }
                found = spec != nil
            case .fish:
                let condition =
                    command.map { "'__fish_seen_subcommand_from \($0)'" } ?? "'not __fish_seen_subcommand_from"
                let flag = name.hasPrefix("--") ? " -l \(name.dropFirst(2)) " : " -s \(name.dropFirst()) "
                found = lines.contains { $0.contains("-n \(condition)") && $0.contains(flag) }
            }
            #expect(found, "\(shell): \(command ?? "merge") \(name)")
        }
    }

    /// What bash's completion offers for each command line (words split as bash splits them).
    static func bashCompletions(_ lines: [[String]]) async throws -> [String] {
        let bash = try #require(Self.bash)
        let script = try await CommandRun.feedmerge(["--generate-completion", "bash"])
        try #require(script.status == 0)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("feedmerge-\(UUID().uuidString).bash")
        try script.standardOutput.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let driver = """
            source "$1"
            while IFS=$'\\t' read -r -a COMP_WORDS; do
                [[ ${COMP_WORDS[-1]} == "(empty)" ]] && COMP_WORDS[-1]=""
                COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
                _feedmerge
                echo "${COMPREPLY[*]}"
            done
            """
        // An empty last word (the cursor after a space) travels as "(empty)": read drops it.
        let input = lines.map { $0.map { $0.isEmpty ? "(empty)" : $0 }.joined(separator: "\t") + "\n" }.joined()
        let outcome = try await bash.run(["-c", driver, "bash", file.path], input: input)
        try #require(outcome.status == 0, "\(outcome.standardError)")
        return outcome.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(
            String.init)
    }

    @Test(.tags(.externalProgram), .enabled(if: bash != nil, "bash is not installed"))
    func bashCompletesLiToLimitAndLink() async throws {
        #expect(try await Self.bashCompletions([["feedmerge", "--li"]]) == ["--limit --link"])
    }

    @Test(.tags(.externalProgram), .enabled(if: bash != nil, "bash is not installed"))
    func bashCompletesEveryOptionAndTheValuesItKnows() async throws {
        let names = Self.everyName.map { ["feedmerge"] + ($0.command.map { [$0] } ?? []) + [$0.name] }
        let offered = try await Self.bashCompletions(names)
        for (words, reply) in zip(names, offered) {
            #expect(reply.split(separator: " ").contains { $0 == words.last! }, "\(words) gave \(reply)")
        }
        let values = try await Self.bashCompletions([
            ["feedmerge", "a.opml", "--future", ""],
            ["feedmerge", "a.opml", "-o", "x.atom", "--format", "=", "j"],
            ["feedmerge", "--generate-completion", ""],
            ["feedmerge", "pa"],
            ["feedmerge", "parse", "--s"],
            ["feedmerge", "fetch", "--li"],
            ["feedmerge", "fetch", "https://exa"],
        ])
        #expect(values == ["keep clamp drop", "json", "bash zsh fish", "parse", "--sanitize --summary", "", ""])
    }

    @Test(.tags(.externalProgram), .enabled(if: bash != nil, "bash is not installed"))
    func bashCompletesSubcommandsFoldersAndEachCommandsOptions() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("feedmerge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("venus"), withIntermediateDirectories: true)
        try Data().write(to: folder.appendingPathComponent("planet.ini"))
        defer { try? FileManager.default.removeItem(at: folder) }
        let offered = try await Self.bashCompletions([
            ["feedmerge", "state", ""],
            ["feedmerge", "state", "copy", folder.path + "/p"],
            ["feedmerge", "help", ""],
            ["feedmerge", "help", "pl"],
            ["feedmerge", "help", "planet", ""],
            ["feedmerge", "he"],
            ["feedmerge", "planet", "--venus", folder.path + "/"],
            ["feedmerge", "worker", "--le"],
            ["feedmerge", "render", "--hea"],
        ])
        #expect(
            offered == [
                "copy", folder.path + "/planet.ini", "planet worker render parse fetch state key", "planet", "", "help",
                folder.path + "/venus", "--lease", "--health",
            ])
        let worker = try await Self.bashCompletions([["feedmerge", "worker", "--"], ["feedmerge", "render", "--"]])
        let workerNames = WorkerCommand.interface.options.flatMap(\.names).filter { $0.hasPrefix("--") }
        let renderNames = RenderCommand.interface.options.flatMap(\.names).filter { $0.hasPrefix("--") }
        #expect(Set(worker[0].split(separator: " ").map(String.init)) == Set(workerNames + ["--help"]))
        #expect(Set(worker[1].split(separator: " ").map(String.init)) == Set(renderNames + ["--help"]))
    }

    @Test(.tags(.externalProgram), .enabled(if: zsh != nil, "zsh is not installed (scripts/setup --test installs it)"))
    func zshReadsItsScript() async throws {
        // zsh -n checks the syntax; completing needs an interactive shell (zpty), too
        // timing-dependent for a test.
        let outcome = try await #require(Self.zsh).run(["-n"], input: CompletionScript.zsh.render())
        #expect(outcome.status == 0 && outcome.standardError.isEmpty, "\(outcome.standardError)")
    }

    @Test(
        .tags(.externalProgram), .enabled(if: fish != nil, "fish is not installed (scripts/setup --test installs it)"))
    func fishReadsItsScriptAndCompletesLi() async throws {
        let fish = try #require(Self.fish)
        let syntax = try await fish.run(["--no-config", "-n"], input: CompletionScript.fish.render())
        #expect(syntax.status == 0 && syntax.standardError.isEmpty, "\(syntax.standardError)")
        let completed = try await fish.run(
            ["--no-config", "-c", "source; complete -C 'feedmerge --li'; complete -C 'feedmerge parse --s'"],
            input: CompletionScript.fish.render())
        let offered = completed.standardOutput.split(separator: "\n").map { $0.split(separator: "\t")[0] }
        #expect(offered == ["--limit", "--link", "--sanitize", "--summary"], "\(completed.standardError)")
    }

    @Test(
        .tags(.externalProgram), .enabled(if: fish != nil, "fish is not installed (scripts/setup --test installs it)"))
    func fishCompletesSubcommandsAndFolders() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("feedmerge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("venus"), withIntermediateDirectories: true)
        try Data().write(to: folder.appendingPathComponent("planet.ini"))
        defer { try? FileManager.default.removeItem(at: folder) }
        func offered(_ line: String) async throws -> [String] {
            let command = "source; complete -C \(line.singleQuoted)"
            let completed = try await #require(Self.fish).run(
                ["--no-config", "-c", command], input: CompletionScript.fish.render())
            return completed.standardOutput.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }
        }
        #expect(try await offered("feedmerge state ") == ["copy"])
        #expect(try await offered("feedmerge state copy \(folder.path)/p") == [folder.path + "/planet.ini"])
        #expect(try await offered("feedmerge help pl") == ["planet"])
        #expect(try await offered("feedmerge planet --venus \(folder.path)/") == [folder.path + "/venus/"])
        #expect(try await offered("feedmerge worker --le") == ["--lease"])
    }
}
