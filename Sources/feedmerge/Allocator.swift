import Commands

#if !FEEDMERGE_SYSTEM_MALLOC
    import CJemalloc
#endif

/// The merge run allocates and frees millions of small blocks from several
/// threads at once (libxml2's trees, the model's strings); jemalloc, linked
/// into the executable, serves every malloc in the process. Measured with
/// scripts/bench-e2e: about 10% less CPU than glibc's allocator.
enum Allocator {
    /// What the commands are told of it.
    static var linked: LinkedAllocator { LinkedAllocator(version: version, releaseFreed: releaseFreed) }

    /// "jemalloc 5.3.0-…", as `--version` prints it.
    static var version: String {
        #if FEEDMERGE_SYSTEM_MALLOC
            return "the system allocator (built with FEEDMERGE_SYSTEM_MALLOC, for the sanitizers)"
        #else
            var text: UnsafePointer<CChar>? = nil
            var size = MemoryLayout<UnsafePointer<CChar>?>.size
            guard mallctl("version", &text, &size, nil, 0) == 0, let text else { return "jemalloc (version unknown)" }
            return "jemalloc " + String(cString: text)
        #endif
    }

    /// Gives the system back the pages of freed memory every arena still
    /// holds (jemalloc keeps them for about 10 s, its decay, to reuse them).
    @Sendable static func releaseFreed() {
        #if !FEEDMERGE_SYSTEM_MALLOC
            // "arena.<MALLCTL_ARENAS_ALL>.purge": every arena.
            _ = mallctl("arena.4096.purge", nil, nil, nil, 0)
        #endif
    }
}
