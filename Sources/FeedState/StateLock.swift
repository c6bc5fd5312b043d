import Glibc

/// One run per state at a time: an exclusive `flock` on `<state>.lock`,
/// held for the life of this value (and released by the kernel if the
/// process dies).
public final class StateLock {
    private let descriptor: Int32

    /// - Returns: nil when another run holds the lock.
    public init?(statePath: String) {
        let fd = open(statePath + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return nil }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return nil
        }
        descriptor = fd
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
