import Glibc

/// One run per state at a time: an exclusive `flock` on `<state>.lock`,
/// held for the life of this value (and released by the kernel if the
/// process dies).
public final class StateLock: Sendable {
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// Another run holds the lock: try again later.
        case held(path: String)
        /// The state's folder or lock file cannot be created (or opened):
        /// trying again will not help.
        case cannotCreate(path: String, reason: String)

        public var description: String {
            switch self {
            case .held(let path): "another run holds \(path); nothing was done"
            case .cannotCreate(let path, let reason): "cannot create \(path): \(reason)"
            }
        }
    }

    private let descriptor: Int32

    /// Creates the state's folder when missing, then takes the lock.
    public init(statePath: String) throws(Failure) {
        let folder = statePath.split(separator: "/", omittingEmptySubsequences: false).dropLast()
            .joined(separator: "/")
        if !folder.isEmpty { try Self.createFolders(folder) }
        var status = stat()
        if stat(statePath, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR {
            throw .cannotCreate(path: statePath, reason: "is a folder; --state names the state file")
        }
        let path = statePath + ".lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .cannotCreate(path: path, reason: String(cString: strerror(errno))) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno
            close(fd)
            if reason == EWOULDBLOCK { throw .held(path: path) }
            throw .cannotCreate(path: path, reason: "cannot lock: " + String(cString: strerror(reason)))
        }
        descriptor = fd
    }

    /// `mkdir -p`, each missing folder in turn.
    private static func createFolders(_ folder: String) throws(Failure) {
        var path = folder.hasPrefix("/") ? "" : "."
        for part in folder.split(separator: "/") {
            path += "/" + part
            if mkdir(path, 0o755) != 0 && errno != EEXIST {
                throw .cannotCreate(path: path, reason: String(cString: strerror(errno)))
            }
        }
        var status = stat()
        guard stat(folder, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
            throw .cannotCreate(path: folder, reason: "not a folder")
        }
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
