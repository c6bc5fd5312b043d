#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A temporary file no other process sees: created, then unlinked at once;
/// closed (and so gone) with its last reference. Read and written at
/// offsets (`pread`, `pwrite`), so that readers share it: what a process
/// holds for long but reads rarely (a page's sorted runs, a long list's
/// subscriptions) kept out of its memory.
public final class SpillFile: Sendable {
    public let descriptor: Int32
    /// Where `append` writes next.
    private let end = Locked(0)

    /// Nil when no temporary file can be made (in `TMPDIR`, else `/tmp`).
    /// - Parameter prefix: the start of its name while it has one (`feedmerge-page`).
    public init?(prefix: String) {
        let folder = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array(((folder.hasSuffix("/") ? folder : folder + "/") + prefix + "-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard made >= 0 else { return nil }
        _ = fcntl(made, F_SETFD, FD_CLOEXEC)  // not inherited by the processes this one starts
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        descriptor = made
    }

    deinit { close(descriptor) }

    /// Writes all the bytes at `offset`; false when they cannot all be written (a full disk).
    private func write(_ bytes: [UInt8], at offset: Int) -> Bool {
        var done = 0
        while done < bytes.count {
            let wrote = bytes.withUnsafeBytes {
                pwrite(descriptor, $0.baseAddress! + done, $0.count - done, off_t(offset + done))
            }
            if wrote < 0 && errno == EINTR { continue }
            guard wrote > 0 else { return false }
            done += wrote
        }
        return true
    }

    /// Writes the bytes after all that `append` wrote before; where they are, or nil when they
    /// cannot all be written (the space is not used again).
    public func append(_ bytes: [UInt8]) -> Range<Int>? {
        let offset = end.withLock { end in
            defer { end += bytes.count }
            return end
        }
        return write(bytes, at: offset) ? offset..<offset + bytes.count : nil
    }

    /// Why bytes written could not be read back.
    public struct Unreadable: Error {
        public var reason: String
    }

    /// The `count` bytes at `offset`, all of them (they were written).
    public func read(at offset: Int, count: Int) -> Result<[UInt8], Unreadable> {
        guard count > 0 else { return .success([]) }
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress! + done, count - done, off_t(offset + done))
            }
            if got < 0 && errno == EINTR { continue }
            if got < 0 { return .failure(Unreadable(reason: String(cString: strerror(errno)))) }
            if got == 0 { return .failure(Unreadable(reason: "the file ends \(count - done) bytes short")) }
            done += got
        }
        return .success(bytes)
    }
}
