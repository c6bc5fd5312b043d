import Foundation
import Synchronization

/// A Venus `.sed` filter (`stripAd/yahoo.sed`, or any a configuration
/// names): Venus runs `sed -f FILE` over the document's text, and so does
/// this, with GNU sed's `--sandbox` (its `e`, `r` and `w` commands, which
/// would run a command or reach another file, are refused) and no shell.
/// A run past its time limit is killed, and the script is then not run again.
final class SedScript: Sendable {
    let path: String
    let timeLimit: Double
    private let program: String
    private let stopped = Atomic<Bool>(false)

    /// Where sed is looked for: Debian's, whatever PATH says.
    static let programs = ["/usr/bin/sed", "/bin/sed"]

    init(path: String, timeLimit: Double) throws(EntryFilterError) {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw EntryFilterError("\(path): no such filter file")
        }
        guard let program = Self.programs.first(where: FileManager.default.isExecutableFile) else {
            throw EntryFilterError(
                "\(path): sed is not installed (looked for \(Self.programs.joined(separator: ", ")))")
        }
        self.path = path
        self.timeLimit = timeLimit
        self.program = program
    }

    func run(_ text: String) -> DocumentFilter.Outcome {
        guard !stopped.load(ordering: .relaxed) else { return .stopped(now: false) }
        let input = Array(text.utf8)
        let outcome = FilterProcess.run(
            program, ["--sandbox", "-f", path], input: input, timeLimit: timeLimit,
            outputLimit: max(1 << 20, input.count * 16))
        switch outcome {
        case .expired:
            stopped.store(true, ordering: .relaxed)
            return .stopped(now: true)
        case .failed(let reason):
            return .failed(reason)
        case .finished(let status, let output, let errors):
            guard status == 0 else {
                let said = String(decoding: errors, as: UTF8.self).split(separator: "\n").first.map(String.init)
                return .failed(said ?? "sed ended with status \(status)")
            }
            return output == input ? .unchanged : .text(String(decoding: output, as: UTF8.self))
        }
    }
}
