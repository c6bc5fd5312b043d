import Foundation
import TestSupport
import Testing

/// Memory the test process holds, in MB, for the fetch cap's growth bound.
///
/// Normally the resident size (`VmRSS`). Under a sanitizer whose runtime has its own allocator
/// (AddressSanitizer, ThreadSanitizer: `scripts/sanitize`), the live heap instead, as that runtime
/// counts it (`__sanitizer_get_current_allocated_bytes`): there the resident size also holds what
/// the sanitizer keeps for itself, above all ASan's quarantine (freed blocks held back, up to
/// 256 MB by default, to catch use after free) and the shadow memory. Under ASan the full suite
/// measured 362 MB and 375 MB of resident growth for bodies capped at 1 MB. The live heap keeps
/// the normal build's bound meaningful instead of scaling it until it could not catch a bomb: in
/// an ASan program that keeps 200 MB and then frees 300 MB, the live heap reads 200 MB after both,
/// the resident size 225 MB and then 507 MB.
func memoryInUseMegabytes() throws -> Int {
    if let liveHeapBytes = SanitizerRuntime.liveHeapBytes {
        return liveHeapBytes() / (1024 * 1024)
    }
    let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
    let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }, "no VmRSS line")
    let kilobytes = try #require(line.split(separator: " ").dropFirst().first.flatMap { Int($0) }, "\(line)")
    return kilobytes / 1024
}
