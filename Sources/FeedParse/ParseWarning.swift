/// The warnings a parse gives that the merge command counts for the user.
public enum ParseWarning {
    /// The words every unreadable-date warning carries.
    static let unreadableDate = "unparseable date"

    /// Whether a warning is about a date that could not be read (the entry
    /// is then undated: dated by first sight with a state, else by its feed).
    public static func isUnreadableDate(_ warning: String) -> Bool { warning.contains(unreadableDate) }

    /// Whether a warning says the document ended early (cut at the size
    /// cap, a dropped connection): only the entries that arrived whole were read.
    public static func isTruncation(_ warning: String) -> Bool {
        warning.hasPrefix("document truncated") || warning.hasSuffix("the document was cut there")
    }

    /// Whether a warning says the document was not well-formed, and what
    /// libxml2 recovered of it was read.
    public static func isRecovery(_ warning: String) -> Bool { warning.hasPrefix("not well-formed XML, recovered") }
}
