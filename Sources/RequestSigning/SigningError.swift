/// Why a key could not be read, made or used: what was being done, and
/// OpenSSL's own words when it was OpenSSL that refused.
public struct SigningError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed, in the operator's terms ("reading key.pem", "signing").
    public var operation: String
    /// Why: the file's problem, or the library's message.
    public var reason: String

    public init(_ operation: String, _ reason: String) {
        self.operation = operation
        self.reason = reason
    }

    public var description: String { "\(operation): \(reason)" }
}
