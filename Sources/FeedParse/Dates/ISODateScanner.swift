import FeedModel

/// ISO 8601 / RFC 3339 / W3C-DTF: `2003-12-31T10:14:55.1234-08:00`, partial
/// dates (`2003`, `2003-12`), compact (`20031231`, `031231`), ordinal
/// (`2003-335`, `03335`), two-digit forms (`-0312`, `-03-12`, `03-12-31`, `03-335`), a space for
/// the `T`, and a missing zone (read as UTC). Must match the whole string.
struct ISODateScanner {
    private let b: UnsafeBufferPointer<UInt8>
    private var i = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { b = bytes }

    private var atEnd: Bool { i >= b.count }
    private func peek(_ k: Int = 0) -> UInt8? { i + k < b.count ? b[i + k] : nil }

    /// Reads exactly `count` digits.
    private mutating func digits(_ count: Int) -> Int? {
        guard i + count <= b.count else { return nil }
        var value = 0
        for k in 0..<count {
            guard DateParser.isDigit(b[i + k]) else { return nil }
            value = value * 10 + Int(b[i + k] - 0x30)
        }
        i += count
        return value
    }

    private func digitRun() -> Int {
        var k = i
        while k < b.count, DateParser.isDigit(b[k]) { k += 1 }
        return k - i
    }

    mutating func scan() -> Timestamp? {
        guard var date = scanDate() else { return nil }
        if atEnd { return date.instant(offset: 0) }
        guard let separator = peek(),
            separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") || separator == 0x20
        else { return nil }
        i += 1
        while peek() == 0x20 { i += 1 }
        guard scanTime(into: &date) else { return nil }
        while peek() == 0x20 { i += 1 }
        guard let offset = scanZone(), atEnd else { return nil }
        return date.instant(offset: offset)
    }

    struct Fields {
        var year = 0, month = 1, day = 1, ordinal: Int? = nil
        var hour = 0, minute = 0, second = 0

        func instant(offset: Int) -> Timestamp? {
            var month = self.month
            var day = self.day
            if let ordinal {
                guard ordinal >= 1, ordinal <= (CivilTime.isLeap(year) ? 366 : 365) else { return nil }
                var remaining = ordinal
                month = 1
                while remaining > CivilTime.daysIn(month: month, year: year) {
                    remaining -= CivilTime.daysIn(month: month, year: year)
                    month += 1
                }
                day = remaining
            }
            return CivilTime.timestamp(
                year: year, month: month, day: day, hour: hour, minute: minute, second: second, offsetSeconds: offset)
        }
    }

    private mutating func scanDate() -> Fields? {
        var f = Fields()
        if peek() == UInt8(ascii: "-") {  // -YYMM, -YY-MM
            i += 1
            guard let yy = digits(2) else { return nil }
            f.year = DateParser.fullYear(yy, digits: 2)
            if peek() == UInt8(ascii: "-") { i += 1 }
            guard let mm = digits(2) else { return nil }
            f.month = mm
            return f
        }
        switch digitRun() {
        case 4:
            f.year = digits(4)!
            guard peek() == UInt8(ascii: "-") else { return f }
            i += 1
            switch digitRun() {
            case 3: f.ordinal = digits(3)
            case 2:
                f.month = digits(2)!
                if peek() == UInt8(ascii: "-") {
                    i += 1
                    guard let dd = digits(2) else { return nil }
                    f.day = dd
                }
            default: return nil
            }
        case 8:
            f.year = digits(4)!
            f.month = digits(2)!
            f.day = digits(2)!
        case 7:
            f.year = digits(4)!
            f.ordinal = digits(3)
        case 2:
            // feedparser's `YY-MM-DD` and `YY-OOO` (`03-12-31` is 2003-12-31).
            f.year = DateParser.fullYear(digits(2)!, digits: 2)
            guard peek() == UInt8(ascii: "-") else { return nil }
            i += 1
            if digitRun() == 3 {
                f.ordinal = digits(3)
            } else {
                guard let mm = digits(2), peek() == UInt8(ascii: "-") else { return nil }
                i += 1
                guard let dd = digits(2), digitRun() == 0 else { return nil }
                f.month = mm
                f.day = dd
            }
        case 6:
            f.year = DateParser.fullYear(digits(2)!, digits: 2)
            f.month = digits(2)!
            f.day = digits(2)!
        case 5:
            f.year = DateParser.fullYear(digits(2)!, digits: 2)
            f.ordinal = digits(3)
        default:
            return nil
        }
        return f
    }

    private mutating func scanTime(into f: inout Fields) -> Bool {
        guard let hour = digits(2) else { return false }
        f.hour = hour
        let compact = peek() != UInt8(ascii: ":")
        if !compact { i += 1 }
        guard let minute = digits(2) else { return compact }
        f.minute = minute
        if !compact {
            guard peek() == UInt8(ascii: ":") else { return true }
            i += 1
        }
        guard let second = digits(2) else { return compact }
        f.second = second
        if let mark = peek(), mark == UInt8(ascii: ".") || mark == UInt8(ascii: ",") {
            i += 1
            guard digitRun() > 0 else { return false }
            i += digitRun()
        }
        return true
    }

    /// The zone's offset east of UTC in seconds; a missing zone is UTC.
    private mutating func scanZone() -> Int? {
        guard let c = peek() else { return 0 }
        if c == UInt8(ascii: "Z") || c == UInt8(ascii: "z") {
            i += 1
            return 0
        }
        guard c == UInt8(ascii: "+") || c == UInt8(ascii: "-") else { return nil }
        i += 1
        guard let hours = digits(2) else { return nil }
        var minutes = 0
        if peek() == UInt8(ascii: ":") { i += 1 }
        if !atEnd {
            guard let m = digits(2) else { return nil }
            minutes = m
        }
        guard hours <= 23, minutes <= 59 else { return nil }
        let offset = hours * 3600 + minutes * 60
        return c == UInt8(ascii: "-") ? -offset : offset
    }
}
