import Foundation

/// The fault server (Server/fault_server.py) on 127.0.0.1 and 127.0.0.2,
/// started once for the test process; it exits when our end of its stdin
/// closes, so no server outlives the tests.
final class TestServer: @unchecked Sendable {
    static let shared: TestServer = {
        do {
            return try TestServer()
        } catch {
            fatalError("cannot start the fault server: \(error)")
        }
    }()

    let process = Process()
    let input = Pipe()
    let port: Int
    let secondPort: Int

    init() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Server/fault_server.py")
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
        let ports = String(decoding: line, as: UTF8.self).split(separator: " ").compactMap { Int($0) }
        guard ports.count == 2 else { throw POSIXError(.EIO) }
        port = ports[0]
        secondPort = ports[1]
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }
    func secondURL(_ path: String) -> String { "http://127.0.0.2:\(secondPort)\(path)" }
}
