import Foundation
import TestSupport

/// What the differential test runs beside feedmerge: the real Planet Venus and
/// Planet 2.0 (`../shared/corpora`) under Python 2.7, all three with the same
/// fixed clock and the same feeds served on 127.0.0.1, and what it makes of
/// their outputs (`Fixtures/differential/view.py`: what a reader sees).
enum PlanetDifferential {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/differential")
    static let venus = SharedCorpora.path("venus")
    static let planet2 = SharedCorpora.path("planet2/code")
    /// The run's "now": 2024-12-01T00:00:00Z.
    static let now = (iso: "2024-12-01T00:00:00Z", epoch: 1_733_011_200)

    /// Python 2.7: pyenv's 2.7.18, else a python2.7 on PATH that runs.
    static let python27: String? = {
        let home = ProcessInfo.processInfo.environment["HOME"] ?? "/root"
        let candidates = ["\(home)/.pyenv/versions/2.7.18/bin/python2.7", ExternalProgram("python2.7")?.path]
        return candidates.compactMap { $0 }.first { path in
            FileManager.default.isExecutableFile(atPath: path)
                && (try? run(
                    path, ["-c", "import sys; assert sys.version_info[:2] == (2, 7)"], in: "/",
                    environment: ["PYENV_VERSION": "2.7.18"]))?.status == 0
        }
    }()

    /// Why the test cannot run here, or nil.
    static let skip: String? = {
        guard let venus, FileManager.default.fileExists(atPath: venus.appendingPathComponent("planet.py").path),
            let planet2, FileManager.default.fileExists(atPath: planet2.appendingPathComponent("planet.py").path),
            SharedCorpora.path("realworld") != nil
        else { return "needs ../shared/corpora (venus, planet2, realworld)" }
        if python27 == nil {
            return "needs Python 2.7 (pyenv's 2.7.18, or python2.7 on PATH) to run Venus and Planet 2.0"
        }
        if ExternalProgram("xsltproc") == nil { return "needs xsltproc, which Venus runs its XSLT templates with" }
        return nil
    }()

    /// The real-world captures both programs read (`Server/corpus_server.py`).
    static let server = LocalServer.start(
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Server/corpus_server.py"))

    /// What one program run gave.
    struct Outcome {
        var status: Int32
        var output: String
    }

    /// Runs a program in a folder to its end, its output in a file (no pipe to keep open).
    /// Waits for it without holding a thread of Swift's cooperative pool.
    static func run(_ program: String, _ arguments: [String], in folder: String, environment: [String: String] = [:])
        async throws -> Outcome
    {
        let run = try Started(program, arguments, in: folder, environment: environment)
        defer { run.remove() }
        await run.process.exited()
        return run.outcome()
    }

    /// `run(_:_:in:environment:)` waiting on this thread: only for `python27`'s lazy initializer,
    /// which cannot be async; a test awaits the overload above.
    static func run(_ program: String, _ arguments: [String], in folder: String, environment: [String: String] = [:])
        throws -> Outcome
    {
        let run = try Started(program, arguments, in: folder, environment: environment)
        defer { run.remove() }
        run.process.waitUntilExit()
        return run.outcome()
    }

    /// A program started in a folder, its output going to a log file.
    private struct Started {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("differential-\(UUID().uuidString)")
        let process = ChildProcess()

        init(_ program: String, _ arguments: [String], in folder: String, environment: [String: String]) throws {
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            do {
                process.executableURL = URL(fileURLWithPath: program)
                process.arguments = arguments
                process.currentDirectoryURL = URL(fileURLWithPath: folder)
                var env = ProcessInfo.processInfo.environment
                for name in [
                    "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
                    "SOURCE_DATE_EPOCH", "PYTHONHOME", "PYTHONSTARTUP",
                ] {
                    env.removeValue(forKey: name)
                }
                env["no_proxy"] = "127.0.0.1"
                env["TZ"] = "UTC"
                env.merge(environment) { $1 }
                process.environment = env
                let handle = try FileHandle(forWritingTo: log)
                process.standardOutput = handle
                process.standardError = handle
                process.standardInput = FileHandle.nullDevice
                try process.run()
                try handle.close()
            } catch {
                remove()
                throw error
            }
        }

        func outcome() -> Outcome {
            Outcome(status: process.terminationStatus, output: (try? String(contentsOf: log, encoding: .utf8)) ?? "")
        }

        func remove() { try? FileManager.default.removeItem(at: log) }
    }

    /// Runs Venus (`planet.py CONFIG`) or Planet 2.0 (`code/planet.py CONFIG`) in a folder, at the fixed clock.
    static func runPython(_ script: String, _ config: String, in folder: String) async throws -> Outcome {
        try await run(
            python27!, [script, config], in: folder,
            environment: [
                "PYENV_VERSION": "2.7.18", "PYTHONPATH": fixtures.path,
                "FEEDMERGE_DIFFERENTIAL_NOW": String(now.epoch), "PYTHONDONTWRITEBYTECODE": "1",
            ])
    }

    /// Runs `feedmerge planet [--venus DIR] CONFIG` in a folder, at the fixed clock.
    static func runFeedmerge(_ config: String, in folder: String, venus: Bool) async throws -> Outcome {
        let options = venus ? ["--venus", PlanetDifferential.venus!.path] : []
        return try await run(CommandRun.binary.path, ["planet"] + options + ["--now", now.iso, config], in: folder)
    }

    /// What a reader sees in one output file (view.py's JSON), or why it could not be read.
    static func view(_ path: String) async -> [String: Any] {
        guard FileManager.default.fileExists(atPath: path) else { return ["kind": "missing"] }
        guard let python3 = ExternalProgram("python3"),
            let outcome = try? await run(
                python3.path, [fixtures.appendingPathComponent("view.py").path, path], in: "/"),
            outcome.status == 0,
            let object = try? JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any]
        else { return ["kind": "unreadable"] }
        return object
    }
}
