import Foundation

/// Replaces a file atomically: the text goes to a temporary file in the same
/// folder, is flushed to disk, then renamed over the target. A run killed at
/// any moment leaves the previous file or the new one, never half of one.
public enum AtomicFile {
    public struct WriteError: Error, CustomStringConvertible {
        public var path: String
        public var message: String
        public var description: String { "\(path): \(message)" }
    }

    public static func write(_ text: String, to path: String) throws(WriteError) {
        try write(bytes: Array(text.utf8), to: path)
    }

    public static func write(bytes: [UInt8], to path: String) throws(WriteError) {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let temporary = folder + "/." + url.lastPathComponent + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else {
            throw WriteError(path: path, message: "cannot create \(temporary): \(errorText())")
        }
        var failure: String? = nil
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = "cannot write: \(errorText())"
                    return
                }
                offset += written
            }
        }
        if failure == nil && fsync(descriptor) != 0 { failure = "cannot flush: \(errorText())" }
        close(descriptor)
        if failure == nil && rename(temporary, path) != 0 { failure = "cannot replace: \(errorText())" }
        if let failure {
            unlink(temporary)
            throw WriteError(path: path, message: failure)
        }
        let folderDescriptor = open(folder.isEmpty ? "." : folder, O_RDONLY)
        if folderDescriptor >= 0 {
            fsync(folderDescriptor)  // the rename itself is durable too
            close(folderDescriptor)
        }
    }

    /// Removes the temporary files a killed run left beside `path`.
    public static func removeLeftovers(of path: String) {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let prefix = "." + url.lastPathComponent + ".tmp-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(prefix) {
            unlink(folder + "/" + name)
        }
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
