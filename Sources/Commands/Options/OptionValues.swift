import FeedParse
import FeedModel

/// Reading option values, each with the one-line error users see.
enum OptionValue {
    /// A whole number, 0 or more.
    static func count(_ text: String, for option: String) throws(UsageError) -> Int {
        guard let value = Int(text), value >= 0 else {
            throw UsageError("\(option) needs a whole number (0 or more), not '\(text)'")
        }
        return value
    }

    /// A whole number, 1 or more.
    static func positive(_ text: String, for option: String) throws(UsageError) -> Int {
        guard let value = Int(text), value >= 1 else {
            throw UsageError("\(option) needs a whole number of at least 1, not '\(text)'")
        }
        return value
    }

    /// One of a fixed set of words.
    static func choice<Value: RawRepresentable>(_ text: String, for option: String) throws(UsageError) -> Value
    where Value.RawValue == String, Value: CaseIterable {
        guard let value = Value(rawValue: text) else {
            let words = Value.allCases.map(\.rawValue).joined(separator: ", ")
            throw UsageError("\(option) is one of \(words), not '\(text)'")
        }
        return value
    }

    /// A date in any form feeds use (RFC 3339, RFC 822, ...).
    static func date(_ text: String, for option: String) throws(UsageError) -> Timestamp {
        guard let date = DateParser.parse(text) else { throw UsageError("\(option): cannot read the date '\(text)'") }
        return date
    }

    /// A date, or an age before `now`: `30d`, `12h`, `2w`, `90m`.
    static func dateOrAge(_ text: String, now: Timestamp, for option: String) throws(UsageError) -> Timestamp {
        if let unit = text.last, let amount = Int64(text.dropLast()), amount >= 0 {
            let seconds: Int64? =
                switch unit {
                case "m": 60
                case "h": 3600
                case "d": 86_400
                case "w": 604_800
                default: nil
                }
            if let seconds { return Timestamp(secondsSince1970: now.secondsSince1970 - amount * seconds) }
        }
        guard let date = DateParser.parse(text) else {
            throw UsageError("\(option): '\(text)' is neither a date nor an age (30d, 12h, 2w, 90m)")
        }
        return date
    }
}
