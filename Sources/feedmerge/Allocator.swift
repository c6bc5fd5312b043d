#if !FEEDMERGE_SYSTEM_MALLOC
import CJemalloc
#endif

/// The merge run allocates and frees millions of small blocks from several
/// threads at once (libxml2's trees, the model's strings); jemalloc, linked
/// into the executable, serves every malloc in the process. Measured with
/// scripts/bench-e2e: about 10% less CPU than glibc's allocator.
enum Allocator {
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
}
