import Foundation

/// The planet server (Server/planet_server.py) on 127.0.0.1, one per test
/// process; it exits when our end of its stdin closes.
final class PlanetServer: @unchecked Sendable {
    static let shared: PlanetServer = {
        do {
            return try PlanetServer(script: "planet_server.py")
        } catch {
            fatalError("cannot start the planet server: \(error)")
        }
    }()

    /// Feeds that change between runs (Server/state_server.py).
    static let state: PlanetServer = {
        do {
            return try PlanetServer(script: "state_server.py")
        } catch {
            fatalError("cannot start the state server: \(error)")
        }
    }()

    let process = Process()
    let input = Pipe()
    let port: Int

    init(script name: String) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Server/\(name)")
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data([0x0A]) {
            line.append(byte)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else { throw POSIXError(.EIO) }
        self.port = port
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }
}

/// Runs the built `feedmerge` executable (built beside the test bundle).
struct CommandRun {
    var status: Int32
    var standardOutput: String
    var standardError: String

    static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("feedmerge")

    static func feedmerge(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandRun {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "SOURCE_DATE_EPOCH")
        env.merge(environment) { $1 }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CommandRun(
            status: process.terminationStatus, standardOutput: String(decoding: outData, as: UTF8.self),
            standardError: String(decoding: errData, as: UTF8.self))
    }
}
