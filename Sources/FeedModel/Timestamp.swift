/// An instant, as whole seconds since 1970-01-01T00:00:00Z (UTC).
///
/// Feeds carry second precision at best that matters; a plain integer keeps
/// comparisons cheap and makes output reproducible. Years 0001 to 9999.
public struct Timestamp: Sendable, Hashable, Comparable {
    public var secondsSince1970: Int64

    public init(secondsSince1970: Int64) {
        self.secondsSince1970 = secondsSince1970
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.secondsSince1970 < rhs.secondsSince1970
    }
}

extension Int64 {
    /// Division rounded down (toward minus infinity): the day of a time before 1970 is the day before.
    public func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return self % divisor != 0 && (self < 0) != (divisor < 0) ? quotient - 1 : quotient
    }
}
