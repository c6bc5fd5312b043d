import FeedModel

/// RFC 822 / 1123 / 2822 and their deviations (no weekday, no seconds, no
/// time, two-digit years, long month names, named and military zones,
/// `GMT+hh:mm`, odd spacing and case), asctime (`Sun Jul 15 01:16:00 +0000 2012`),
/// slashed dates (`2006/09/15`), Korean forms, and month and day names in
/// every language of `DateLanguage.all` (`Seg, 24 Set 2018 10:00:00 -0300`,
/// `martes, 24 de abril de 2018`, `24. März 2018 10:00`, `2018. márc. 24.`).
///
/// Words and numbers are read left to right and fill date fields by what
/// they are; an unknown word, a malformed time or zone, or a missing year,
/// month or day rejects the whole string. A day name is decoration; a word
/// that is a month in one language and a day in another (`mar`) is a day
/// only where it leads the string, before any number or month, followed by
/// a comma (`mar., 24 abr.`) or by a month name (`mar 24 abr`).
struct WordDateScanner {
    /// The string, and the index of the next token (read in `WordDateScanner+Tokens`).
    let b: UnsafeBufferPointer<UInt8>
    var i = 0

    private var year: Int?
    private var month: Int?
    private var day: Int?
    private var time: (hour: Int, minute: Int, second: Int)?
    private var offset: Int?
    private var afternoon: Bool?
    private var koreanForm = false
    /// A number has been read: a day name can no longer lead.
    private var sawNumber = false
    /// The month came from a leading `mar`: a month name later makes it Tuesday.
    private var monthMayBeWeekday = false
    /// After `kl.` or `klo`, a time may be written `10.00`.
    private var timeMayUseDots = false

    init(_ bytes: UnsafeBufferPointer<UInt8>) { b = bytes }

    mutating func scan() -> Timestamp? {
        while let t = next() {
            switch t {
            case .number(let value, let digits):
                guard number(value, digits: digits) else { return nil }
                sawNumber = true
            case .word(let range):
                guard word(range) else { return nil }
            case .mark(let c):
                guard mark(c) else { return nil }
            }
        }
        return instant()
    }

    private mutating func number(_ value: Int, digits: Int) -> Bool {
        switch peek() {
        case .mark(UInt8(ascii: ":")):
            return readTime(hour: value, digits: digits, separator: UInt8(ascii: ":"))
        case .mark(UInt8(ascii: ".")) where timeMayUseDots && time == nil:
            return readTime(hour: value, digits: digits, separator: UInt8(ascii: "."))
        case .mark(let separator)
        where separator == UInt8(ascii: "/") || separator == UInt8(ascii: "-")
            || separator == UInt8(ascii: "."):
            if year == nil && month == nil, let afterSeparator = token(at: i)?.1,
                case .number? = token(at: afterSeparator)?.0
            {
                return readNumericDate(first: value, digits: digits, separator: separator)
            }
        case .word(let range):
            switch meaning(of: range) {
            case .unit(let unit)?:
                i = range.upperBound
                koreanForm = true
                switch unit {
                case .year: year = value
                case .month: month = value
                case .day: day = value
                }
                return true
            case .ordinal? where range.lowerBound == i:  // `24th`, `1er`: written on the day
                guard day == nil, digits <= 2, value >= 1, value <= 31 else { return false }
                i = range.upperBound
                day = value
                return true
            default:
                break
            }
        default:
            break
        }
        if digits >= 3 {
            guard year == nil, digits == 4 || digits == 3 else { return false }
            year = value
        } else if day == nil && value >= 1 && value <= 31 && (month != nil || year == nil) {
            day = value
        } else if year == nil {
            year = DateParser.fullYear(value, digits: digits)
        } else {
            return false
        }
        return true
    }

    /// `hh:mm` or `hh:mm:ss`, optionally with a fraction; `hh.mm` after `kl.`.
    private mutating func readTime(hour: Int, digits: Int, separator: UInt8) -> Bool {
        guard time == nil, digits <= 2 else { return false }
        i = token(at: i)!.1  // the separator
        guard case .number(let minute, let minuteDigits)? = next(), minuteDigits == 2 else { return false }
        var second = 0
        if case .mark(separator)? = peek(), case .number? = token(at: token(at: i)!.1)?.0 {
            i = token(at: i)!.1
            guard case .number(let s, let secondDigits)? = next(), secondDigits == 2 else { return false }
            second = s
            if case .mark(separator)? = peek(), separator == UInt8(ascii: ":") { return false }
            if i < b.count, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ","),
                i + 1 < b.count, DateParser.isDigit(b[i + 1])
            {
                i += 1
                _ = next()
            }
        }
        time = (hour, minute, second)
        return true
    }

    /// `2006/09/15`, `2004-05-25`, `15.09.2006`, `09/15/2006`.
    private mutating func readNumericDate(first: Int, digits: Int, separator: UInt8) -> Bool {
        var parts = [(first, digits)]
        while parts.count < 3, case .mark(separator)? = peek() {
            i = token(at: i)!.1
            guard case .number(let value, let d)? = peek() else { break }
            _ = next()
            parts.append((value, d))
        }
        guard parts.count == 3 else {
            return parts.count == 1
        }
        if parts[0].1 == 4 {
            (year, month, day) = (parts[0].0, parts[1].0, parts[2].0)
        } else if separator == UInt8(ascii: "/") && parts[0].0 <= 12 {
            (month, day, year) = (parts[0].0, parts[1].0, DateParser.fullYear(parts[2].0, digits: parts[2].1))
        } else {
            (day, month, year) = (parts[0].0, parts[1].0, DateParser.fullYear(parts[2].0, digits: parts[2].1))
        }
        return true
    }

    private mutating func word(_ range: Range<Int>) -> Bool {
        // A lone `T` between a date and its time (not the military zone T).
        if range.count == 1 && (b[range.lowerBound] | 0x20) == UInt8(ascii: "t") && time == nil && day != nil {
            return true
        }
        guard let meaning = meaning(of: range) else { return false }
        switch meaning {
        case .weekday, .connective:
            return true
        case .clock:
            timeMayUseDots = true
        case .month(let m):
            if range.count == 1 { return false }
            guard month == nil || (monthMayBeWeekday && year == nil) else { return false }
            month = m
            monthMayBeWeekday = false
        case .monthOrWeekday(let m):
            let leads = !sawNumber && month == nil
            if leads && commaFollows(range) { return true }  // `mar., 24 abr. 2018`: Tuesday
            if month == nil {
                month = m
                monthMayBeWeekday = leads
            } else if monthMayBeWeekday && year == nil {  // `mar mar 24`: the first was Tuesday
                month = m
                monthMayBeWeekday = false
            } else {
                return false
            }
        case .zoneAfterTime(let seconds):
            if time == nil { return true }  // `at` before the time: `April 24, 2018 at 10:00`
            guard offset == nil else { return false }
            offset = seconds
        case .zone(let seconds):
            if range.count == 1 && time == nil { return false }  // a military letter only after a time
            guard offset == nil else { return false }
            offset = seconds
        case .meridiem(let isAfternoon):
            afternoon = isAfternoon
            if range.count > 2 { koreanForm = true }
        case .unit, .ordinal:
            return false
        }
        return true
    }

    /// A comma after the word, or after its abbreviation dot.
    private func commaFollows(_ range: Range<Int>) -> Bool {
        guard var (t, end) = token(at: range.upperBound) else { return false }
        if case .mark(UInt8(ascii: ".")) = t, let after = token(at: end) { (t, end) = after }
        if case .mark(UInt8(ascii: ",")) = t { return true }
        return false
    }

    private mutating func mark(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            if time != nil || offset != nil {
                return readOffset(negative: c == UInt8(ascii: "-"))
            }
            return true
        case UInt8(ascii: ","), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: "("), UInt8(ascii: ")"):
            return true
        default:
            return false
        }
    }

    /// `+hhmm`, `+hh:mm`, `+hh` after a time or a zone name (`GMT-01:01`).
    private mutating func readOffset(negative: Bool) -> Bool {
        guard case .number(let value, let digits)? = next() else { return false }
        var hours: Int
        var minutes = 0
        switch digits {
        case 4:
            (hours, minutes) = (value / 100, value % 100)
        case 1, 2:
            hours = value
            if case .mark(UInt8(ascii: ":"))? = peek() {
                i = token(at: i)!.1
                guard case .number(let m, 2)? = next() else { return false }
                minutes = m
            }
        default:
            return false
        }
        guard hours <= 23, minutes <= 59 else { return false }
        let seconds = (hours * 3600 + minutes * 60) * (negative ? -1 : 1)
        offset = (offset ?? 0) + seconds
        return true
    }

    private func instant() -> Timestamp? {
        guard let year, let month, let day else { return nil }
        var (hour, minute, second) = time ?? (0, 0, 0)
        if let afternoon {
            guard hour <= 12 else { return nil }
            if afternoon && hour < 12 { hour += 12 }
            if !afternoon && hour == 12 { hour = 0 }
        }
        let zone = offset ?? (koreanForm ? 9 * 3600 : 0)
        return CivilTime.timestamp(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second, offsetSeconds: zone)
    }
}
