import Foundation
import TestSupport

/// The test servers of the aggregator tests (Server/*.py) on 127.0.0.1.
enum PlanetServer {
    private static func start(_ name: String) -> LocalServer {
        LocalServer.start(
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Server/\(name)"))
    }

    /// A planet of 53 feeds (Server/planet_server.py).
    static let shared = start("planet_server.py")
    /// Feeds that change between runs (Server/state_server.py).
    static let state = start("state_server.py")
    /// A stranger's list, feed, redirects and a forward proxy (Server/hostile_server.py).
    static let hostile = start("hostile_server.py")
}

/// Runs the built `feedmerge` executable (built beside the test bundle).
struct CommandRun {
    /// A fetching run's arguments (the main command with an output, `planet`, `worker`,
    /// `fetch`) with `--host-spacing 0` after the command's name, unless they set it.
    static func withoutSpacing(_ arguments: [String]) -> [String] {
        guard !arguments.contains("--host-spacing"), let first = arguments.first else { return arguments }
        if ["planet", "worker", "fetch"].contains(first) {
            return [first, "--host-spacing", "0"] + arguments.dropFirst()
        }
        let subcommands = ["parse", "render", "state", "help", "key", "completion"]
        guard !subcommands.contains(first), arguments.contains("-o") || arguments.contains("--output") else {
            return arguments
        }
        return ["--host-spacing", "0"] + arguments
    }

    var status: Int32
    var standardOutput: String
    var standardError: String

    static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("feedmerge")

    /// Runs the built binary; `input` (if any) is its standard input; in `workingDirectory` if given.
    /// It waits for the run, and writes its input, without holding a thread of Swift's cooperative
    /// pool (there is no synchronous variant: a test that runs the binary is async).
    /// - Parameter atDefaults: a run that fetches is given `--host-spacing 0` unless this is
    ///   true: the tests' servers are their own loopback ports (docs/politeness.md), and only the
    ///   politeness tests check the spacing a run keeps by default.
    static func feedmerge(
        _ arguments: [String], environment: [String: String] = [:], input: Data? = nil,
        standardOutput: FileHandle? = nil, workingDirectory: String? = nil, atDefaults: Bool = false
    ) async throws -> CommandRun {
        let run = try Started(
            atDefaults ? arguments : withoutSpacing(arguments), environment: environment, input: input != nil,
            standardOutput: standardOutput, workingDirectory: workingDirectory)
        defer { run.remove() }
        if let input { try await OwnThread.run("feedmerge input") { try run.write(input) } }
        await run.process.exited()
        return try run.outcome()
    }

    /// A run of the binary started, its output going to temporary files.
    private struct Started: Sendable {
        let process = ChildProcess()
        let stdin = Pipe()
        let outURL: URL
        let errURL: URL

        init(
            _ arguments: [String], environment: [String: String], input: Bool, standardOutput: FileHandle?,
            workingDirectory: String?
        ) throws {
            process.executableURL = binary
            if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory) }
            process.arguments = arguments
            var env = ProcessInfo.processInfo.environment
            env.removeValue(forKey: "SOURCE_DATE_EPOCH")
            env.merge(environment) { $1 }
            process.environment = env
            // Output goes to temporary files, not pipes: a pipe's reader waits for every
            // writer to close it, and a process another test starts meanwhile (a server, a
            // long run) inherits the write end, so a test would wait for an unrelated process.
            let folder = FileManager.default.temporaryDirectory
            outURL = folder.appendingPathComponent("feedmerge-run-\(getpid())-\(UUID().uuidString).out")
            errURL = folder.appendingPathComponent("feedmerge-run-\(getpid())-\(UUID().uuidString).err")
            _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
            _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
            do {
                let out = try FileHandle(forWritingTo: outURL)
                let err = try FileHandle(forWritingTo: errURL)
                process.standardOutput = standardOutput ?? out
                process.standardError = err
                if input { process.standardInput = stdin }
                try process.run()
                try out.close()
                try err.close()
            } catch {
                remove()
                throw error
            }
        }

        func write(_ input: Data) throws {
            stdin.fileHandleForWriting.write(input)
            try stdin.fileHandleForWriting.close()
        }

        func outcome() throws -> CommandRun {
            let outData = try Data(contentsOf: outURL)
            let errData = try Data(contentsOf: errURL)
            return CommandRun(
                status: process.terminationStatus, standardOutput: String(decoding: outData, as: UTF8.self),
                standardError: String(decoding: errData, as: UTF8.self))
        }

        func remove() {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
    }
}
