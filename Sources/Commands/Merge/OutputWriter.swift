import FeedEmit
import FeedModel
import Foundation
import Glibc
import TextOutput

/// Writes every output of a run at once, each on its own thread: rendering
/// is CPU work the cores share, and each file ends in an fsync that waits
/// for the disk and must not hold up the others (nor a thread of the
/// concurrency pool). Each document streams to its file a megabyte at a
/// time, so the outputs never sit whole in memory.
enum OutputWriter {
    /// For each output in order: nil when it was written, else why not.
    static func write(
        _ outputs: [Outputs.Output], entries: [MergedEntry], metadata: OutputMetadata, verbose: Bool
    ) async -> [String?] {
        await withTaskGroup(of: (Int, String?).self) { group in
            for (index, output) in outputs.enumerated() {
                group.addTask {
                    let failure = await onOwnThread {
                        write(output, entries: entries, metadata: metadata, verbose: verbose)
                    }
                    return (index, failure)
                }
            }
            var failures = [String?](repeating: nil, count: outputs.count)
            for await (index, failure) in group { failures[index] = failure }
            return failures
        }
    }

    private static func write(
        _ output: Outputs.Output, entries: [MergedEntry], metadata: OutputMetadata, verbose: Bool
    ) -> String? {
        let start = Date()
        switch output.destination {
        case .standardOutput:
            var failure: Int32 = 0
            var buffer = TextBuffer(drainingAt: 1 << 20) { if failure == 0 { failure = StandardOutput.write($0) } }
            output.format.render(entries, metadata: metadata, into: &buffer)
            buffer.flush()
            if failure != 0 { return "standard output: cannot write: \(String(cString: strerror(failure)))" }
        case .file(let file):
            do {
                try file.commit { output.format.render(entries, metadata: metadata, into: &$0) }
            } catch {
                return error.description
            }
        }
        if verbose {
            let seconds = String(format: "%.3f", Date().timeIntervalSince(start))
            StandardOutput.error("feedmerge: wrote \(output.path) (\(output.format.rawValue)) in \(seconds) s")
        }
        return nil
    }

    private static func onOwnThread<Result: Sendable>(_ job: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: job()) }.start()
        }
    }
}
