import Foundation

/// A program outside the toolchain (bash, zsh, fish, groff) that a test runs:
/// found on PATH or absent, in which case the test says so and is skipped.
public struct ExternalProgram: Sendable {
    public var path: String

    /// The program on PATH, or nil.
    public init?(_ name: String) {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        guard let folder = folders.first(where: { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") })
        else { return nil }
        path = "\(folder)/\(name)"
    }

    /// What one run gave.
    public struct Outcome: Sendable {
        public var status: Int32
        public var standardOutput: String
        public var standardError: String
    }

    /// Runs it to its end, waiting on this thread: only for a lazy static's initializer, which cannot
    /// be async (`VenusFilterTests.python`); a test awaits the overload below. Output goes through
    /// temporary files, not pipes, so that a child the program leaves behind cannot keep the test waiting.
    public func run(_ arguments: [String], input: String = "") throws -> Outcome {
        let run = try Run(path, arguments, input: input)
        defer { run.remove() }
        run.process.waitUntilExit()
        return run.outcome()
    }

    /// Runs it to its end, waiting without holding a thread of Swift's cooperative pool.
    public func run(_ arguments: [String], input: String = "") async throws -> Outcome {
        let run = try Run(path, arguments, input: input)
        defer { run.remove() }
        await run.process.exited()
        return run.outcome()
    }

    /// One run started: the process and the files of its input and output.
    private struct Run {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("program-\(UUID().uuidString)")
        let process = ChildProcess()

        init(_ path: String, _ arguments: [String], input: String) throws {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            do {
                let paths = ["in", "out", "err"].map { folder.appendingPathComponent($0) }
                try Data(input.utf8).write(to: paths[0])
                for path in paths.dropFirst() { _ = FileManager.default.createFile(atPath: path.path, contents: nil) }
                process.executableURL = URL(fileURLWithPath: path)
                process.arguments = arguments
                process.standardInput = try FileHandle(forReadingFrom: paths[0])
                process.standardOutput = try FileHandle(forWritingTo: paths[1])
                process.standardError = try FileHandle(forWritingTo: paths[2])
                try process.run()
            } catch {
                remove()
                throw error
            }
        }

        func outcome() -> Outcome {
            let text = { (name: String) in
                String(decoding: (try? Data(contentsOf: folder.appendingPathComponent(name))) ?? Data(), as: UTF8.self)
            }
            return Outcome(status: process.terminationStatus, standardOutput: text("out"), standardError: text("err"))
        }

        func remove() { try? FileManager.default.removeItem(at: folder) }
    }
}
