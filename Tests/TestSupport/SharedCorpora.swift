import Foundation

/// The team's third-party test data, `../shared/corpora` beside the
/// repository. A user's clone has no such folder, and CI runs the tests
/// once as such a clone would: with `FEEDMERGE_HIDE_SHARED=1` set, every
/// test that reads the corpora finds none and must still pass.
public enum SharedCorpora {
    /// The corpora folder; nil when it is absent or hidden.
    public static let folder: URL? = {
        if ProcessInfo.processInfo.environment["FEEDMERGE_HIDE_SHARED"] == "1" { return nil }
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../shared/corpora").standardizedFileURL
        return FileManager.default.fileExists(atPath: folder.path) ? folder : nil
    }()

    /// A path inside the corpora; nil when they are absent or hidden.
    public static func path(_ relative: String) -> URL? {
        folder?.appendingPathComponent(relative)
    }
}
