#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Paths resolved as the file system does (every link followed), for checks
/// that a string comparison of paths would let a link slip past.
public enum RealPath {
    /// The real path of `path`, or nil when it does not exist.
    public static func of(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether the real path `path` is `folder` or inside it (both real paths).
    public static func `is`(_ path: String, inside folder: String) -> Bool {
        path == folder || path.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/")
    }

    /// The real path of `path` when it is inside the real path of `folder` (links followed), else nil.
    public static func of(_ path: String, inside folder: String) -> String? {
        guard let real = of(path), let folderReal = of(folder), `is`(real, inside: folderReal) else { return nil }
        return real
    }
}
