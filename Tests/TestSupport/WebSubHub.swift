import Foundation

/// The Python of the virtual environment holding flask-websub, the real WebSub hub the WebSub
/// tests run on loopback (`scripts/websub-python`; `scripts/setup --test` installs it).
public enum WebSubHub {
    /// The interpreter's path, or nil when it is not installed. Waits for `scripts/websub-python` on
    /// this thread: a lazy static's initializer cannot be async.
    public static let python: String? = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let process = Process()
        process.executableURL = root.appendingPathComponent("scripts/websub-python")
        let output = Pipe()
        process.standardOutput = output
        guard (try? process.run()) != nil else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let path = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return process.terminationStatus == 0 && !path.isEmpty ? path : nil
    }()

    /// Why the hub cannot run here, for the test's failure.
    public static let missing =
        "flask-websub is not installed: scripts/setup --test installs it (scripts/websub-python)"
}
