/// How a run ended, as its exit status: one table, shown in `--help` and
/// the README. sysexits(3) values where one fits.
public enum ExitStatus: Int32, CaseIterable, Sendable {
    case success = 0
    /// Some feeds (or files, or URLs) failed; every output was written.
    case someFeedsFailed = 1
    /// The command line or a subscription list cannot be used.
    case usage = 2
    /// No output was written (every feed failed, or no output could be).
    case nothingWritten = 3
    /// Some outputs (or the health report) were written and some not.
    case someOutputsNotWritten = 4
    /// EX_CANTCREAT: the state's folder, lock or file cannot be created.
    case stateCannotBeCreated = 73
    /// EX_IOERR: the state cannot be read or written: at the start nothing
    /// was done; during the run, the outputs were still written.
    case stateUnusable = 74
    /// EX_TEMPFAIL: another run holds the state's lock; try again later.
    case stateLocked = 75

    var meaning: String {
        switch self {
        case .success: "success: every feed fine, every output written"
        case .someFeedsFailed: "some feeds failed; every output written"
        case .usage: "usage error, or a subscription list that cannot be read"
        case .nothingWritten: "no output written (outputs left as they were)"
        case .someOutputsNotWritten: "some outputs (or --health) written, others not"
        case .stateCannotBeCreated: "the state cannot be created (its name and the reason printed)"
        case .stateUnusable:
            "the state cannot be read or written (its name and the reason printed;\n      found during a run that fetches, the outputs were still written\n      unless a feed's stored entries could not be read; a render writes none)"
        case .stateLocked: "another run holds the state's lock; nothing was done"
        }
    }

    /// The table `--help` prints.
    static var table: String {
        "Exit status:\n" + allCases.map { "  " + String($0.rawValue).padded(4) + $0.meaning }.joined(separator: "\n")
    }
}

extension String {
    fileprivate func padded(_ width: Int) -> String {
        self + String(repeating: " ", count: max(1, width - count))
    }
}
