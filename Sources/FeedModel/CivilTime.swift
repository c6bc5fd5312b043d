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
    /// RFC 3339 in UTC with whole seconds: `2004-01-01T19:48:21Z`.
    public var rfc3339: String { String(unsafeUninitializedCapacity: 20) { write(.rfc3339, into: $0) } }

    /// RFC 822 as RSS 2.0 wants it, in GMT: `Thu, 01 Jan 2004 19:48:21 GMT`.
    public var rfc822: String { String(unsafeUninitializedCapacity: 29) { write(.rfc822, into: $0) } }

    public enum Style {
        case rfc3339, rfc822

        /// The length of every date in this style.
        public var length: Int {
            switch self {
            case .rfc3339: 20
            case .rfc822: 29
            }
        }
    }

    /// Writes the date in `style` at the start of `buffer` (at least
    /// `style.length` bytes); returns how many bytes it wrote.
    public func write(_ style: Style, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        switch style {
        case .rfc3339: rfc3339(into: buffer)
        case .rfc822: rfc822(into: buffer)
        }
    }

    private func rfc3339(into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        format(into: buffer) { f, out in
            out.digits(f.year, 4)
            out.byte("-")
            out.digits(f.month, 2)
            out.byte("-")
            out.digits(f.day, 2)
            out.byte("T")
            out.time(f.secondOfDay)
            out.byte("Z")
        }
    }

    private func rfc822(into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        format(into: buffer) { f, out in
            let weekday = ((f.dayNumber % 7) + 7) % 7  // 1970-01-01 was a Thursday
            out.letters("ThuFriSatSunMonTueWed", weekday)
            out.byte(",")
            out.byte(" ")
            out.digits(f.day, 2)
            out.byte(" ")
            out.letters("JanFebMarAprMayJunJulAugSepOctNovDec", f.month - 1)
            out.byte(" ")
            out.digits(f.year, 4)
            out.byte(" ")
            out.time(f.secondOfDay)
            out.letters(" GMT", 0, width: 4)
        }
    }

    /// The UTC calendar fields.
    private struct Fields {
        var dayNumber: Int, year: Int, month: Int, day: Int, secondOfDay: Int
    }

    /// Fixed-width ASCII written straight into the string's (or the output
    /// buffer's) storage: these run for every date of every output entry.
    private struct Digits {
        let buffer: UnsafeMutableBufferPointer<UInt8>
        var count = 0

        mutating func byte(_ character: Unicode.Scalar) {
            buffer[count] = UInt8(ascii: character)
            count += 1
        }

        /// `value` zero-padded to `width` digits.
        mutating func digits(_ value: Int, _ width: Int) {
            var value = UInt(truncatingIfNeeded: value)  // never negative: years are 1...9999
            var position = count + width
            while position > count {
                position -= 1
                buffer[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10)
                value /= 10
            }
            count += width
        }

        /// `hh:mm:ss`.
        mutating func time(_ secondOfDay: Int) {
            digits(secondOfDay / 3600, 2)
            byte(":")
            digits(secondOfDay / 60 % 60, 2)
            byte(":")
            digits(secondOfDay % 60, 2)
        }

        /// The `index`th name of `width` letters in `names`.
        mutating func letters(_ names: StaticString, _ index: Int, width: Int = 3) {
            for offset in 0..<width {
                buffer[count + offset] = names.utf8Start[index * width + offset]
            }
            count += width
        }
    }

    private func format(into buffer: UnsafeMutableBufferPointer<UInt8>, _ body: (Fields, inout Digits) -> Void) -> Int {
        let s = Int(secondsSince1970)
        let dayNumber = s >= 0 ? s / 86_400 : (s - 86_399) / 86_400
        let (year, month, day) = CivilTime.date(days: dayNumber)
        let fields = Fields(
            dayNumber: dayNumber, year: year, month: month, day: day, secondOfDay: s - dayNumber * 86_400)
        var out = Digits(buffer: buffer)
        body(fields, &out)
        return out.count
    }
}
