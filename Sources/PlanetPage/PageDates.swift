import FeedModel
import Glibc

/// Dates as people read them, in UTC, for the page: Planet Venus's
/// `planet:format` ("November 30, 2026 01:05 PM", its default date format,
/// which Venus themes take apart at ", " and " "), and the day and time
/// the default theme shows.
enum PageDates {
    private static let months = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
        "November", "December",
    ]
    private static let weekdays = ["Thursday", "Friday", "Saturday", "Sunday", "Monday", "Tuesday", "Wednesday"]

    private struct Fields {
        var year: Int, month: Int, day: Int, weekday: Int, hour: Int, minute: Int
    }

    private static func fields(_ date: Timestamp) -> Fields {
        let seconds = Int(date.secondsSince1970)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilTime.date(days: days)
        // 1970-01-01 was a Thursday.
        let weekday = ((days % 7) + 7) % 7
        return Fields(
            year: year, month: month, day: day, weekday: weekday, hour: secondOfDay / 3600,
            minute: secondOfDay % 3600 / 60)
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// The three forms the planet document gives every date, from one calendar conversion.
    static func all(_ date: Timestamp) -> (venus: String, day: String, time: String) {
        let f = fields(date)
        return (venus(f), day(f), time(f))
    }

    /// Venus's default `date_format`, `%B %d, %Y %I:%M %p`.
    static func venus(_ date: Timestamp) -> String { venus(fields(date)) }

    /// "Monday, 30 November 2026".
    static func day(_ date: Timestamp) -> String { day(fields(date)) }

    /// "14:05" (UTC).
    static func time(_ date: Timestamp) -> String { time(fields(date)) }

    private static func venus(_ f: Fields) -> String {
        let hour12 = f.hour % 12 == 0 ? 12 : f.hour % 12
        return "\(months[f.month - 1]) \(twoDigits(f.day)), \(f.year) \(twoDigits(hour12)):\(twoDigits(f.minute)) "
            + (f.hour < 12 ? "AM" : "PM")
    }

    private static func day(_ f: Fields) -> String {
        return "\(weekdays[f.weekday]), \(f.day) \(months[f.month - 1]) \(f.year)"
    }

    private static func time(_ f: Fields) -> String {
        return "\(twoDigits(f.hour)):\(twoDigits(f.minute))"
    }
}

extension PageDates {
    /// A date in UTC, as C's `strftime` writes it with `format` in the C
    /// locale, or in `locale` (Venus's `date_format` and `new_date_format`,
    /// Planet 2.0's `locale`); `%Z` is `UTC`, as Planet 2.0 writes it
    /// (Python's `time.strftime` of a UTC time).
    static func formatted(_ date: Timestamp, _ format: String, locale: PageLocale? = nil) -> String {
        var seconds = time_t(date.secondsSince1970)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return "" }
        var buffer = [CChar](repeating: 0, count: 256)
        let length = "UTC".withCString { zone in
            parts.tm_zone = zone
            if let locale { return strftime_l(&buffer, buffer.count, format, &parts, locale.handle) }
            return strftime(&buffer, buffer.count, format, &parts)
        }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
