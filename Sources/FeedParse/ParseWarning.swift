/// The warnings a parse gives that the merge command counts for the user.
public enum ParseWarning {
    /// The words every unreadable-date warning carries.
    static let unreadableDate = "unparseable date"

    /// Whether a warning is about a date that could not be read (the entry
    /// is then undated: dated by first sight with a state, else by its feed).
    public static func isUnreadableDate(_ warning: String) -> Bool { warning.contains(unreadableDate) }
}
