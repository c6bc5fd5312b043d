import Foundation

/// What the tests need to know when they run under a sanitizer (`scripts/sanitize`): its runtime
/// is found by a symbol it exports, so a normal build is unaffected.
public enum SanitizerRuntime {
    public typealias Counter = @convention(c) () -> Int

    /// The sanitizer runtime's live-heap counter when one is linked into this process, found by
    /// name in the process's own symbols (ASan and TSan export it); nil in a normal build.
    public static var liveHeapBytes: Counter? {
        guard let process = dlopen(nil, RTLD_NOW),
            let symbol = dlsym(process, "__sanitizer_get_current_allocated_bytes")
        else { return nil }
        return unsafeBitCast(symbol, to: Counter.self)
    }

    /// What a wall-clock bound is multiplied by: 1 normally, 4 under a sanitizer. Under TSan the
    /// whole suite runs several times slower, and a fetch test's measured time includes waiting for
    /// a thread of the 2-core cooperative pool while other suites' (slowed) work holds it: on 2
    /// cores, fault-matrix fetches that fail in milliseconds can wait 39 s against a 30 s bound,
    /// with no sanitizer report. Scaling keeps each bound's meaning:
    /// a fetch that ignored its own limit, or a caller never resumed, still exceeds it.
    public static let timeScale: Double = liveHeapBytes == nil ? 1 : 4
}
