/// A command line feedmerge cannot run: one line saying why, then where
/// to read more; exit status 2.
struct UsageError: Error, Equatable {
    var message: String
    init(_ message: String) { self.message = message }
}
