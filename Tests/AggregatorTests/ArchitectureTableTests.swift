import Foundation
import TestSupport
import Testing

/// ARCHITECTURE.md's module table, `Package.swift`'s target dependencies and
/// each module's `import` lines say the same thing: `scripts/check-architecture`
/// compares them, and this runs it so that `swift test` fails when they drift.
@Suite struct ArchitectureTableTests {
    /// The repository: three folders up from this file (Tests/AggregatorTests/…).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// python3 on `PATH`, if there is one.
    static let python: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("python3") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    @Test(.enabled(if: python != nil, "python3 is not on PATH: scripts/check-architecture cannot run"))
    func moduleTableMatchesPackageAndImports() async throws {
        let python = try #require(Self.python)
        let process = ChildProcess()
        process.executableURL = python
        process.arguments = [
            Self.root.appendingPathComponent("scripts/check-architecture").path, "--root", Self.root.path,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: await output.fileHandleForReading.readToEndOffPool(), as: UTF8.self)
        await process.exited()
        #expect(process.terminationStatus == 0, "scripts/check-architecture failed:\n\(text)")
        #expect(text.contains("agree"), "scripts/check-architecture said:\n\(text)")
    }
}
