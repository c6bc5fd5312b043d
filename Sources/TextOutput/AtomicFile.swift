internal import CLinux
import FeedModel
import Foundation
import Synchronization

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
        try replace(path) { file in bytes.withUnsafeBufferPointer { file.write($0) } }
    }

    /// Streams a document into the file: `body` appends to a buffer that is
    /// written out a megabyte at a time, so the document is never whole in
    /// memory. The file is replaced only once all of it is on disk.
    public static func write(to path: String, _ body: (inout TextBuffer) -> Void) throws(WriteError) {
        try replace(path) { file in
            var buffer = TextBuffer(drainingAt: 1 << 20) { file.write($0) }
            body(&buffer)
            buffer.flush()
        }
    }

    /// Names temporary files apart when one run writes several outputs at once.
    private static let serial = Atomic<Int>(0)

    private static func replace(_ path: String, fill: (TemporaryFile) -> Void) throws(WriteError) {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let number = serial.add(1, ordering: .relaxed).newValue
        let temporary = folder + "/." + url.lastPathComponent + ".tmp-\(getpid())-\(number)"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_TRUNC, 0o644)
        guard descriptor >= 0 else {
            throw WriteError(path: path, message: "cannot create \(temporary): \(errorText())")
        }
        let file = TemporaryFile(descriptor: descriptor)
        fill(file)
        var failure = file.failure
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

    /// The temporary file being filled; remembers the first write error
    /// and writes nothing after it.
    private final class TemporaryFile {
        let descriptor: Int32
        var failure: String? = nil
        /// Bytes written, and how many of them the disk was asked to take.
        private var written = 0
        private var flushStarted = 0

        init(descriptor: Int32) { self.descriptor = descriptor }

        func write(_ buffer: UnsafeBufferPointer<UInt8>) {
            guard failure == nil, let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let count = Foundation.write(descriptor, base + offset, buffer.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = "cannot write: \(errorText())"
                    return
                }
                offset += count
            }
            written += buffer.count
            // Every 8 MB, start writing the new part to disk without waiting
            // for it, so the fsync at the end waits only for the last part.
            if written - flushStarted >= 8 << 20 {
                _ = clinux_start_writeback(descriptor, Int64(flushStarted), Int64(written - flushStarted))
                flushStarted = written
            }
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
