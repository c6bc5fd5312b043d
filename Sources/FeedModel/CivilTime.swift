/// Calendar arithmetic on the proleptic Gregorian calendar, in UTC, without
/// Foundation (no `Calendar`, no `DateFormatter`: this runs for every date
/// of every entry).
public enum CivilTime {
    /// Days from 1970-01-01 to year-month-day (Howard Hinnant's algorithm).
    public static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The inverse of `days`.
    public static func date(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    public static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// A checked instant: nil when a field is out of range or the instant
    /// falls outside years 1...9999 once the offset is applied.
    public static func timestamp(
        year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, offsetSeconds: Int = 0
    ) -> Timestamp? {
        guard (1...9999).contains(year), (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            (0...23).contains(hour) || (hour == 24 && minute == 0 && second == 0), (0...59).contains(minute),
            (0...60).contains(second), abs(offsetSeconds) < 24 * 3600
        else { return nil }
        let seconds =
            days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60
            + min(second, 59) - offsetSeconds
        let utcYear = date(days: seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400).year
        guard (1...9999).contains(utcYear) else { return nil }
        return Timestamp(secondsSince1970: Int64(seconds))
    }
}

extension Timestamp {
    /// The UTC calendar fields, zero-padded as both date formats want them.
    private var fields: (day: Int, year: String, month: Int, dayOfMonth: String, time: String) {
        let s = Int(secondsSince1970)
        let dayNumber = s >= 0 ? s / 86_400 : (s - 86_399) / 86_400
        let secondOfDay = s - dayNumber * 86_400
        let (y, m, d) = CivilTime.date(days: dayNumber)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let year = String(repeating: "0", count: max(0, 4 - String(y).count)) + String(y)
        let time = "\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))"
        return (dayNumber, year, m, two(d), time)
    }

    /// RFC 3339 in UTC with whole seconds: `2004-01-01T19:48:21Z`.
    public var rfc3339: String {
        let f = fields
        return "\(f.year)-\(f.month < 10 ? "0" : "")\(f.month)-\(f.dayOfMonth)T\(f.time)Z"
    }

    /// RFC 822 as RSS 2.0 wants it, in GMT: `Thu, 01 Jan 2004 19:48:21 GMT`.
    public var rfc822: String {
        let f = fields
        let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return "\(weekdays[((f.day % 7) + 7) % 7]), \(f.dayOfMonth) \(months[f.month - 1]) \(f.year) \(f.time) GMT"
    }
}
