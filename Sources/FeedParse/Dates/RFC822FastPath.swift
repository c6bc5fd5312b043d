import FeedModel

/// The form RSS 2.0 asks for and most feeds write, exactly:
/// `Tue, 01 Jan 2020 13:36:00 GMT` or `Fri, 4 Jan 2020 08:54:36 +0200`
/// (weekday optional; zone `GMT`, `UT`, `UTC`, `Z` or a numeric offset).
/// Read in one pass; anything else, even a valid deviation, returns nil
/// and goes to `WordDateScanner`, which reads every form and is the
/// reference this must agree with.
enum RFC822FastPath {
    static func scan(_ b: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        var i = 0
        let n = b.count
        func digit(_ k: Int) -> Int? {
            guard k < n, DateParser.isDigit(b[k]) else { return nil }
            return Int(b[k] - 0x30)
        }
        func two(_ k: Int) -> Int? {
            guard let high = digit(k), let low = digit(k + 1) else { return nil }
            return high * 10 + low
        }
        // Weekday: three letters, a comma and a space (its value is not checked, as in WordDateScanner).
        if n > 5, b[3] == UInt8(ascii: ","), b[4] == 0x20, case .weekday? = word(b, at: 0) { i = 5 }
        guard let firstDigit = digit(i) else { return nil }
        var day = firstDigit
        i += 1
        if let second = digit(i) {
            day = day * 10 + second
            i += 1
        }
        guard i + 14 <= n, b[i] == 0x20, b[i + 4] == 0x20, let month = word(b, at: i + 1)?.month else {
            return nil
        }
        i += 5
        guard let century = two(i), let yearInCentury = two(i + 2), i + 4 < n, b[i + 4] == 0x20 else { return nil }
        i += 5
        guard let hour = two(i), i + 8 <= n, b[i + 2] == UInt8(ascii: ":"), let minute = two(i + 3),
            b[i + 5] == UInt8(ascii: ":"), let second = two(i + 6)
        else { return nil }
        i += 8
        guard i < n, b[i] == 0x20 else { return nil }
        i += 1
        let offset: Int
        switch n - i {
        case 5 where b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-"):
            guard let hours = two(i + 1), let minutes = two(i + 3), hours <= 23, minutes <= 59 else { return nil }
            offset = (hours * 3600 + minutes * 60) * (b[i] == UInt8(ascii: "-") ? -1 : 1)
        case 3 where b[i] == UInt8(ascii: "G") && b[i + 1] == UInt8(ascii: "M") && b[i + 2] == UInt8(ascii: "T"),
            3 where b[i] == UInt8(ascii: "U") && b[i + 1] == UInt8(ascii: "T") && b[i + 2] == UInt8(ascii: "C"),
            2 where b[i] == UInt8(ascii: "U") && b[i + 1] == UInt8(ascii: "T"),
            1 where b[i] == UInt8(ascii: "Z"):
            offset = 0
        default:
            return nil
        }
        return CivilTime.timestamp(
            year: century * 100 + yearInCentury, month: month, day: day, hour: hour, minute: minute,
            second: second, offsetSeconds: offset)
    }

    /// What the three letters at `k` mean, by the table `WordDateScanner`
    /// reads them with first (so both agree on every spelling and case).
    /// Only the English names are there: a localized name falls back.
    private static func word(_ b: UnsafeBufferPointer<UInt8>, at k: Int) -> DateWord? {
        DateWord.lookup(packed: DateWord.pack(UnsafeBufferPointer(rebasing: b[k..<k + 3])))
    }
}
