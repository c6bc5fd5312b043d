/// A command line feedmerge cannot run: exit code 2 with this message (nil: print usage only).
struct UsageError: Error {
    var message: String?
    init(_ message: String?) { self.message = message }
}
