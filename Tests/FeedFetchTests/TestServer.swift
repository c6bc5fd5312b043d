import Foundation
import TestSupport

/// The fault server (Server/fault_server.py) on 127.0.0.1 and 127.0.0.2.
enum TestServer {
    static let shared = FaultServer(
        server: LocalServer.start(
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Server/fault_server.py")
        ))
}

struct FaultServer: Sendable {
    let server: LocalServer

    func url(_ path: String) -> String { server.url(path) }
    func secondURL(_ path: String) -> String { server.url(path, host: "127.0.0.2", port: 1) }
}
