import FeedModel

/// `Retry-After` (RFC 9110, 10.2.3): delay seconds, or an HTTP date.
enum RetryAfter {
    /// Seconds to wait from `now` (seconds since 1970), never negative.
    static func seconds(_ value: String, now: Int64) -> Int? {
        let text = value.trimmingCharacters(in: " \t")
        if let delay = Int(text), delay >= 0 { return delay }
        guard let date = HTTPDate.parse(text) else { return nil }
        return Int(max(0, date - now))
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
        guard let day, let month, let year, let time, (1...31).contains(day), time[0] < 24, time[1] < 60,
            time[2] < 61
        else { return nil }
        return CivilTime.timestamp(
            year: year, month: month, day: day, hour: time[0], minute: time[1], second: time[2]
        )?.secondsSince1970
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
