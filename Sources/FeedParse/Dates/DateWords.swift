/// What a word in a date string means.
enum DateWord: Sendable {
    case weekday
    case month(Int)
    /// A named zone, as its offset east of UTC in seconds.
    case zone(Int)
    case meridiem(isAfternoon: Bool)
    /// Korean unit suffixes: 년 (year), 월 (month), 일 (day).
    case unit(Unit)

    enum Unit: Sendable { case year, month, day }

    /// Lower-case spellings. English (RFC 822 and long forms), Greek and
    /// Hungarian month and day names, and the Korean forms feeds use.
    static let table: [String: DateWord] = {
        var table: [String: DateWord] = [:]
        let months = [
            ["jan", "january", "ιαν", "január", "januar"],
            ["feb", "february", "φεβ", "február", "februar"],
            ["mar", "march", "μάρ", "μαρ", "március", "märz", "mär"],
            ["apr", "april", "απρ", "április"],
            ["may", "μάι", "μάϊ", "μαι", "μαϊ", "május", "máj", "mai"],
            ["jun", "june", "ιούν", "ιον", "június", "jún", "juni"],
            ["jul", "july", "ιούλ", "ιολ", "július", "júl", "juli"],
            ["aug", "august", "αύγ", "αυγ", "augusztus"],
            ["sep", "sept", "september", "σεπ", "szeptember"],
            ["oct", "october", "οκτ", "október", "okt", "oktober"],
            ["nov", "november", "νοέ", "νοε"],
            ["dec", "december", "δεκ", "dez", "dezember"],
        ]
        for (index, names) in months.enumerated() {
            for name in names { table[name] = .month(index + 1) }
        }
        let weekdays = [
            "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun", "monday", "tuesday",
            "wednesday", "thursday", "friday", "saturday", "sunday", "κυρ", "δευ", "τρι", "τετ", "πεμ", "παρ", "σαβ",
            "hétfő", "kedd", "szerda", "csütörtök", "péntek", "szombat", "vasárnap",
        ]
        for name in weekdays { table[name] = .weekday }
        let hour = 3600
        let zones: [String: Int] = [
            "ut": 0, "utc": 0, "gmt": 0, "z": 0, "wet": 0,
            "est": -5 * hour, "edt": -4 * hour, "cst": -6 * hour, "cdt": -5 * hour,
            "mst": -7 * hour, "mdt": -6 * hour, "pst": -8 * hour, "pdt": -7 * hour,
            "ast": -4 * hour, "adt": -3 * hour, "at": -4 * hour, "et": -5 * hour, "ct": -6 * hour,
            "mt": -7 * hour, "pt": -8 * hour, "akst": -9 * hour, "akdt": -8 * hour, "hst": -10 * hour,
            "nst": -12_600, "ndt": -9_000,
            "bst": hour, "ist": 19_800, "cet": hour, "cest": 2 * hour, "met": hour, "mest": 2 * hour,
            "west": hour, "eet": 2 * hour, "eest": 3 * hour, "msk": 3 * hour, "jst": 9 * hour, "kst": 9 * hour,
            "hkt": 8 * hour, "sgt": 8 * hour, "awst": 8 * hour, "acst": 34_200, "aest": 10 * hour,
            "aedt": 11 * hour, "nzst": 12 * hour, "nzdt": 13 * hour,
        ]
        for (name, offset) in zones { table[name] = .zone(offset) }
        // RFC 822 military zones, signs as that RFC wrote them (A = -1 ... M = -12, N = +1 ... Y = +12).
        for (k, letter) in "abcdefghiklm".enumerated() { table[String(letter)] = .zone(-(k + 1) * hour) }
        for (k, letter) in "nopqrstuvwxy".enumerated() { table[String(letter)] = .zone((k + 1) * hour) }
        table["am"] = .meridiem(isAfternoon: false)
        table["pm"] = .meridiem(isAfternoon: true)
        table["오전"] = .meridiem(isAfternoon: false)
        table["오후"] = .meridiem(isAfternoon: true)
        table["년"] = .unit(.year)
        table["월"] = .unit(.month)
        table["일"] = .unit(.day)
        return table
    }()

    /// The ASCII words of `table` up to 8 letters, packed into integers and
    /// sorted: the RFC 822 words every date has are found by binary search,
    /// without building a String or hashing one.
    static let packed: (keys: [UInt64], words: [DateWord]) = {
        let entries = table.compactMap { name, word -> (UInt64, DateWord)? in
            guard name.utf8.count <= 8, name.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
            return (pack(name.utf8), word)
        }.sorted { $0.0 < $1.0 }
        return (entries.map(\.0), entries.map(\.1))
    }()

    /// Up to 8 ASCII letters, lower-cased, as one integer (first letter lowest).
    static func pack(_ letters: some Sequence<UInt8>) -> UInt64 {
        var key: UInt64 = 0
        var shift: UInt64 = 0
        for c in letters {
            key |= UInt64(c >= 0x41 && c <= 0x5A ? c + 0x20 : c) << shift
            shift += 8
        }
        return key
    }

    static func lookup(packed key: UInt64) -> DateWord? {
        var low = 0
        var high = packed.keys.count
        while low < high {
            let middle = (low + high) / 2
            if packed.keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < packed.keys.count && packed.keys[low] == key ? packed.words[low] : nil
    }
}
