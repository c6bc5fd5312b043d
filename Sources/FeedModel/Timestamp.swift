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
