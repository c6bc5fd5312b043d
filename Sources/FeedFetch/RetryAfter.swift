import Basics
import FeedModel

/// `Retry-After` (RFC 9110, 10.2.3): a delay in seconds, counted from when
/// the response arrived, or an HTTP date, an absolute instant. The two are
/// kept apart so that the instant is stored as it is and the delay is added
/// to the run's own time (which `--now` may set), never the wall clock's.
public enum RetryAfter: Sendable, Hashable {
    case delay(seconds: Int)
    case date(Timestamp)

    /// Nil when the value is neither form.
    init?(parsing value: String) {
        let text = value.trimming(" \t")
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // delta-seconds too large for any clock: as long as RFC 9111 1.2.2 lets a cache count.
            self = .delay(seconds: Int(text).map { min($0, Int(Int32.max)) } ?? Int(Int32.max))
        } else if let date = HTTPDate.parse(text) {
            self = .date(Timestamp(secondsSince1970: date))
        } else {
            return nil
        }
    }

    /// The longest wait honoured: a wrong or hostile header must not
    /// silence a feed for good (cache lifetimes stop there too).
    public static let longestWait: Int64 = 7 * 86_400

    /// The earliest time to ask again, for a response received at `now`:
    /// the header's instant, at most `longestWait` away.
    public func notBefore(now: Timestamp) -> Timestamp {
        let asked: Int64
        switch self {
        case .delay(let seconds): asked = now.secondsSince1970 + Int64(seconds)
        case .date(let date): asked = date.secondsSince1970
        }
        return Timestamp(secondsSince1970: min(asked, now.secondsSince1970 + Self.longestWait))
    }

    /// Seconds to wait from `now`, never negative.
    public func seconds(from now: Timestamp) -> Int {
        Int(max(0, notBefore(now: now).secondsSince1970 - now.secondsSince1970))
    }
}

/// HTTP dates: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) and the two
/// obsolete forms (RFC 850 and asctime), as seconds since 1970.
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    static func parse(_ text: String) -> Int64? {
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" }).map(String.init)
        var day: Int?
        var month: Int?
        var year: Int?
        var time: [Int]?
        for token in tokens {
            if token.contains(":") {
                let parts = token.split(separator: ":").compactMap { Int($0) }
                guard parts.count == 3 else { return nil }
                time = parts
            } else if let number = Int(token) {
                if day == nil && token.count <= 2 && month != nil || day == nil && year == nil && token.count <= 2 {
                    day = number
                } else {
                    year = token.count == 2 ? (number < 70 ? 2000 + number : 1900 + number) : number
                }
            } else if let index = months.firstIndex(of: String(token.prefix(3)).lowercased()), token.count >= 3,
                !["mon", "tue", "wed", "thu", "fri", "sat", "sun"].contains(token.prefix(3).lowercased())
            {
                month = index + 1
            }
        }
        guard let day, let month, let year, let time, (1...31).contains(day), (1...9999).contains(year),
            time.allSatisfy({ $0 >= 0 }), time[0] < 24, time[1] < 60, time[2] < 61
        else { return nil }
        return CivilTime.timestamp(
            year: year, month: month, day: day, hour: time[0], minute: time[1], second: time[2]
        )?.secondsSince1970
    }
}
