/// One thing a long-running process tells its operator: how grave it is, a
/// stable name for what happened (`event`, a key a log pipeline can match),
/// the sentence a person reads, and the facts that sentence names as
/// fields (`url`, `reason`, `seconds`, …) for a pipeline to read without
/// parsing the sentence.
public struct LogEvent: Sendable {
    public enum Level: String, Sendable {
        case error, warning, info

        /// The syslog priority the journal reads from a line's `<N>` prefix (sd-daemon(3)).
        var syslogPriority: Int {
            switch self {
            case .error: 3
            case .warning: 4
            case .info: 6
            }
        }
    }

    /// A field's value: written as a JSON string or number.
    public enum Value: Sendable, Equatable {
        case text(String)
        case integer(Int)
        case number(Double)
    }

    public var level: Level
    public var event: String
    public var message: String
    public var fields: [(key: String, value: Value)]

    public init(_ level: Level, _ event: String, _ message: String, _ fields: [(key: String, value: Value)] = []) {
        self.level = level
        self.event = event
        self.message = message
        self.fields = fields
    }
}

extension LogEvent.Value: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
}
