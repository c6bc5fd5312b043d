import Glibc

/// The process's limit on open files, which bounds how many idle
/// connections the client can keep for reuse (each is a descriptor).
public enum OpenFileLimit {
    /// Raises the soft limit towards the hard one, to at most `wanted`
    /// (Debian's default soft limit is 1,024, its hard limit far higher);
    /// a lower hard limit, or a refusal, leaves it as it was.
    public static func raise(to wanted: Int = 8192) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        let target = min(rlim_t(wanted), limit.rlim_max)
        guard limit.rlim_cur < target else { return }
        limit.rlim_cur = target
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// The soft limit now (1,024 when it cannot be read).
    static var current: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        return Int(clamping: limit.rlim_cur)
    }

    /// How many idle connections to keep for reuse: half of what the limit
    /// leaves beside the run's other files (the state, the outputs, the
    /// transfers in flight), at least libcurl's own default of four per
    /// transfer in flight, at most 1,024.
    static func idleConnections(transfersInFlight: Int, openFiles: Int = OpenFileLimit.current) -> Int {
        let spare = (openFiles - 256 - transfersInFlight) / 2
        return max(4 * transfersInFlight, min(1024, spare))
    }
}
