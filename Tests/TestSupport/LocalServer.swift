import Foundation

/// A test server script (Python, standard library) started on loopback for
/// the tests of one process. The script prints its port(s) on its first
/// line and exits when its stdin closes, that is when the test process
/// ends: no server outlives the tests.
public final class LocalServer: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    /// The ports the script printed, in order.
    public let ports: [Int]

    /// Reads the port line on this thread (a static's lazy initializer); async code calls
    /// `started(script:python:arguments:)`.
    /// - Parameters:
    ///   - script: the script's path.
    ///   - python: the interpreter (a virtual environment's, for a script with dependencies).
    ///   - arguments: what the script is given after its path.
    public init(script: URL, python: String = "python3", arguments: [String] = []) throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python, script.path] + arguments
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data([0x0A]) {
            line.append(byte)
        }
        ports = String(decoding: line, as: UTF8.self).split(separator: " ").compactMap { Int($0) }
        guard !ports.isEmpty else { throw POSIXError(.EIO) }
    }

    /// `init(script:python:arguments:)` for async code: the script starts, and its port line is
    /// read, on a thread of its own, not on one of Swift's cooperative pool.
    public static func started(script: URL, python: String = "python3", arguments: [String] = []) async throws
        -> LocalServer
    {
        try await OwnThread.run("start \(script.lastPathComponent)") {
            try LocalServer(script: script, python: python, arguments: arguments)
        }
    }

    /// Starts a script or stops the test run: without its server a suite cannot run at all.
    /// Reads the port line on this thread: for a static's lazy initializer, which cannot be async
    /// (every `static let` of a suite that starts a server); async code uses the overload below.
    public static func start(_ script: URL, python: String = "python3") -> LocalServer {
        do {
            return try LocalServer(script: script, python: python)
        } catch {
            fatalError("cannot start \(script.lastPathComponent): \(error)")
        }
    }

    /// `start(_:python:)` for async code (a suite's async initializer): the port line is read on a
    /// thread of its own, not on one of Swift's cooperative pool.
    public static func start(_ script: URL, python: String = "python3") async -> LocalServer {
        do {
            return try await started(script: script, python: python)
        } catch {
            fatalError("cannot start \(script.lastPathComponent): \(error)")
        }
    }

    public func url(_ path: String, host: String = "127.0.0.1", port index: Int = 0) -> String {
        "http://\(host):\(ports[index])\(path)"
    }
}
