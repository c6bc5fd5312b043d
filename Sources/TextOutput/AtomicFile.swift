internal import CLinux
import FeedModel
import Foundation
import Synchronization

/// Replaces a file atomically: the text goes to a temporary file in the same
/// folder, is flushed to disk, then renamed over the target. A run killed at
/// any moment leaves the previous file or the new one, never half of one.
///
/// A run reserves each output before it does any work (`reserve`): the
/// temporary file is created then, so an output that cannot be written is
/// known before a single feed is fetched. A reservation is used once:
/// committed or discarded (or discarded when it is dropped).
///
/// The target keeps what it was: a symbolic link is followed (the file it
/// names is replaced, the link stays), the new file gets the old one's
/// permissions, and anything but a regular file (a folder, a device, a
/// pipe) is refused.
public final class AtomicFile: Sendable {
    public struct WriteError: Error, CustomStringConvertible {
        public var path: String
        public var message: String
        public var description: String { "\(path): \(message)" }
    }

    /// The file as named, and the file that will be replaced (the same
    /// unless `path` is a symbolic link).
    public let path: String
    private let target: String
    private let temporary: String
    /// The temporary file's descriptor until the reservation is used, then -1. Taken by one
    /// atomic exchange (which ThreadSanitizer understands, unlike the contended path of
    /// `Synchronization.Mutex` on Linux: see Basics' `Locked`).
    private let descriptor: Atomic<Int32>

    private init(path: String, target: String, temporary: String, descriptor: Int32) {
        self.path = path
        self.target = target
        self.temporary = temporary
        self.descriptor = Atomic(descriptor)
    }

    /// Creates the temporary file beside the target.
    /// - Throws: when the folder is missing or not writable, or the target
    ///   is not a regular file.
    public static func reserve(_ path: String) throws(WriteError) -> AtomicFile {
        var target = path
        var mode: mode_t = 0o644
        var status = stat()
        if lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFLNK {
            guard let resolved = realpath(path, nil) else {
                throw WriteError(path: path, message: "a symbolic link to nothing that can be written: \(errorText())")
            }
            target = String(cString: resolved)
            free(resolved)
        }
        if stat(target, &status) == 0 {
            guard (status.st_mode & S_IFMT) == S_IFREG else {
                let kind = (status.st_mode & S_IFMT) == S_IFDIR ? "a folder" : "not a regular file"
                throw WriteError(path: path, message: "is \(kind); only regular files are replaced")
            }
            mode = status.st_mode & 0o7777
        }
        let url = URL(fileURLWithPath: target)
        let folder = url.deletingLastPathComponent().path
        let number = serial.add(1, ordering: .relaxed).newValue
        let temporary = folder + "/." + url.lastPathComponent + ".tmp-\(getpid())-\(number)"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw WriteError(path: path, message: "cannot write in \(folder)/: \(errorText())")
        }
        fchmod(descriptor, mode)
        return AtomicFile(path: path, target: target, temporary: temporary, descriptor: descriptor)
    }

    /// The descriptor, once: later calls get nil.
    private func take() -> Int32? {
        let taken = descriptor.exchange(-1, ordering: .acquiringAndReleasing)
        return taken >= 0 ? taken : nil
    }

    /// A document written into the reservation as it is made, over as long
    /// as its maker needs (a run in parts): appended to a buffer that is
    /// written out a megabyte at a time, never whole in memory. `finish`
    /// replaces the file once all of it is on disk.
    public struct Stream: ~Copyable {
        public var buffer: TextBuffer
        fileprivate let file: TemporaryFile
        fileprivate let previous: PreviousContent
    }

    /// Starts writing the reservation (see `Stream`).
    public func stream() throws(WriteError) -> Stream {
        guard let descriptor = take() else { throw WriteError(path: path, message: "already written or given up") }
        let file = TemporaryFile(descriptor: descriptor)
        let previous = PreviousContent(path: target)
        let buffer = TextBuffer(drainingAt: 1 << 20) { bytes in
            file.write(bytes)
            previous.compare(bytes)
        }
        return Stream(buffer: buffer, file: file, previous: previous)
    }

    /// Streams a document into the file: `body` appends to a buffer that is
    /// written out a megabyte at a time, so the document is never whole in
    /// memory. The file is replaced only once all of it is on disk, and
    /// never when `body` said it could not make all of it (`TextBuffer.fail`).
    /// - Returns: whether its bytes differ from the file it replaced (true
    ///   when there was none): what a WebSub hub is told of.
    @discardableResult
    public func commit(_ body: (inout TextBuffer) -> Void) throws(WriteError) -> Bool {
        var stream = try stream()
        body(&stream.buffer)
        return try finish(stream)
    }

    /// The streamed document's last bytes written, flushed to disk, and the
    /// file replaced by it.
    /// - Returns: whether its bytes differ from the file it replaced.
    @discardableResult
    public func finish(_ stream: consuming Stream) throws(WriteError) -> Bool {
        stream.buffer.flush()
        let file = stream.file
        let changed = stream.previous.differsAtEnd()
        var failure = file.failure ?? stream.buffer.failure
        if failure == nil && fsync(file.descriptor) != 0 { failure = "cannot flush: \(errorText())" }
        close(file.descriptor)
        if failure == nil && rename(temporary, target) != 0 { failure = "cannot replace: \(errorText())" }
        if let failure {
            unlink(temporary)
            throw WriteError(path: path, message: failure)
        }
        let folder = URL(fileURLWithPath: target).deletingLastPathComponent().path
        let folderDescriptor = open(folder.isEmpty ? "." : folder, O_RDONLY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            fsync(folderDescriptor)  // the rename itself is durable too
            close(folderDescriptor)
        }
        return changed
    }

    @discardableResult
    public func commit(bytes: [UInt8]) throws(WriteError) -> Bool {
        try commit { $0.append(bytes: bytes) }
    }

    /// Gives a streamed document up: the target stays as it was.
    public func discard(_ stream: consuming Stream) {
        close(stream.file.descriptor)
        unlink(temporary)
    }

    /// Gives the reservation up: the target stays as it was.
    public func discard() {
        guard let descriptor = take() else { return }
        close(descriptor)
        unlink(temporary)
    }

    deinit { discard() }

    /// Removes the temporary file whatever state the reservation is in: for
    /// a process about to end (SIGTERM) while it may still be writing it.
    /// Once committed there is no temporary file, and this does nothing.
    public func abandon() { unlink(temporary) }

    public static func write(_ text: String, to path: String) throws(WriteError) {
        try reserve(path).commit(bytes: Array(text.utf8))
    }

    public static func write(bytes: [UInt8], to path: String) throws(WriteError) {
        try reserve(path).commit(bytes: bytes)
    }

    public static func write(to path: String, _ body: (inout TextBuffer) -> Void) throws(WriteError) {
        try reserve(path).commit(body)
    }

    /// Names temporary files apart when one run writes several outputs at once.
    private static let serial = Atomic<Int>(0)

    /// The temporary file being filled; remembers the first write error
    /// and writes nothing after it.
    fileprivate final class TemporaryFile {
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

    /// The file being replaced, read alongside the new bytes as they are
    /// written, until the first difference: whether the new file differs
    /// is known without holding either whole in memory.
    fileprivate final class PreviousContent {
        private var descriptor: Int32
        private var differs: Bool
        private var chunk: [UInt8] = []

        init(path: String) {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            differs = descriptor < 0
        }

        deinit { stop() }

        private func stop() {
            if descriptor >= 0 { close(descriptor) }
            descriptor = -1
        }

        /// Reads as many bytes of the previous file as `bytes` holds and compares them.
        func compare(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard !differs, let new = bytes.baseAddress, bytes.count > 0 else { return }
            if chunk.count < bytes.count { chunk = [UInt8](repeating: 0, count: bytes.count) }
            let read = readFully(count: bytes.count)
            differs =
                read != bytes.count
                || !chunk.withUnsafeBufferPointer { old in
                    memcmp(old.baseAddress!, new, bytes.count) == 0
                }
            if differs { stop() }
        }

        /// Whether the new bytes differ, once all are written: also when the previous file is longer.
        func differsAtEnd() -> Bool {
            if !differs {
                if chunk.isEmpty { chunk = [0] }
                differs = readFully(count: 1) != 0
            }
            stop()
            return differs
        }

        /// Reads up to `count` bytes into `chunk`; fewer only at the end of the file (or on an error).
        private func readFully(count: Int) -> Int {
            var total = 0
            while total < count {
                let got = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + total, count - total) }
                if got < 0 && errno == EINTR { continue }
                if got <= 0 { break }
                total += got
            }
            return total
        }
    }

    /// Removes the temporary files that runs killed before they finished
    /// left beside `path` (`.NAME.tmp-PID-N`); those of a process still
    /// alive (another run writing the same file) are left alone.
    public static func removeLeftovers(of path: String) {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let prefix = "." + url.lastPathComponent + ".tmp-"
        // A folder that cannot be listed has nothing this run could clean; reserving the output reports it.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "-" }), pid > 0 else { continue }
            if pid == getpid() || kill(pid, 0) == 0 || errno == EPERM { continue }
            unlink(folder + "/" + name)
        }
    }

}

/// The message of the last system call's error.
private func errorText() -> String { String(cString: strerror(errno)) }
