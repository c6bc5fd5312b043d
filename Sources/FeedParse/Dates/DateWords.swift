/// What a word in a date string means.
enum DateWord: Sendable, Equatable {
    case weekday
    case month(Int)
    /// A spelling that is a month in some languages and a weekday in others:
    /// `mar` is March (English, Spanish, Italian, Portuguese, the Scandinavian
    /// languages, German `Mär`) and Tuesday (French `mar.`, Spanish, Italian).
    /// `WordDateScanner` reads it by its position in the string.
    case monthOrWeekday(Int)
    /// A named zone, as its offset east of UTC in seconds.
    case zone(Int)
    /// A zone after the time, a joining word before it: English `at`
    /// (`April 24, 2018 at 10:00` but `16:31:00 AT`, Atlantic Time).
    case zoneAfterTime(Int)
    case meridiem(isAfternoon: Bool)
    /// Korean unit suffixes: 년 (year), 월 (month), 일 (day).
    case unit(Unit)
    /// A word that only joins a date's parts: `de` (`24 de abril de 2018`),
    /// `den`, `um`, `Uhr`, `às`.
    case connective
    /// `kl.`, `klo`: the time after it may be written with a dot (`kl. 10.00`).
    case clock
    /// An ordinal ending written on the day: `24th`, `1st`, `1er`.
    case ordinal

    enum Unit: Sendable { case year, month, day }

    /// The month this word names where it stands for a month.
    var month: Int? {
        switch self {
        case .month(let m), .monthOrWeekday(let m): return m
        default: return nil
        }
    }

    /// Every spelling in every language of `DateLanguage.all`, lower-cased and
    /// folded (`fold`), with the zones and the Korean forms feedparser reads.
    static let table: [String: DateWord] = tables.all

    /// Spellings two languages give meanings that position cannot tell apart
    /// (a month in one, another month in another); left out, never guessed.
    static let conflicts: [String] = tables.conflicts

    /// The RFC 822 words (English month and day names, zones) the fast path
    /// reads, packed: found by binary search without building a String.
    static let rfc822: PackedWords = tables.rfc822

    /// The other ASCII spellings up to 8 letters, packed the same way, for
    /// `WordDateScanner` after `rfc822` has not found a word.
    static let localized: PackedWords = tables.localized

    private struct Tables: Sendable {
        var all: [String: DateWord] = [:]
        var conflicts: [String] = []
        var rfc822 = PackedWords([:])
        var localized = PackedWords([:])
    }

    private static let tables: Tables = {
        var tables = Tables()
        var rfc822Keys: Set<String> = []
        func add(_ spelling: String, _ word: DateWord, rfc822: Bool = false) {
            let key = fold(spelling)
            if rfc822 { rfc822Keys.insert(key) }
            guard !tables.conflicts.contains(key) else { return }
            guard let old = tables.all[key] else {
                tables.all[key] = word
                return
            }
            if let merged = merge(old, word) {
                tables.all[key] = merged
            } else {
                tables.all[key] = nil
                tables.conflicts.append(key)
            }
        }
        for (name, offset) in zones { add(name, .zone(offset), rfc822: true) }
        // RFC 822 military zones, signs as that RFC wrote them (A = -1 ... M = -12, N = +1 ... Y = +12).
        for (k, letter) in "abcdefghiklm".enumerated() { add(String(letter), .zone(-(k + 1) * 3600), rfc822: true) }
        for (k, letter) in "nopqrstuvwxy".enumerated() { add(String(letter), .zone((k + 1) * 3600), rfc822: true) }
        add("at", .zoneAfterTime(-4 * 3600), rfc822: true)
        add("am", .meridiem(isAfternoon: false), rfc822: true)
        add("pm", .meridiem(isAfternoon: true), rfc822: true)
        for language in DateLanguage.all {
            let isEnglish = language.name == DateLanguage.english.name
            for (index, spellings) in language.months.enumerated() {
                for spelling in spellings { add(spelling, .month(index + 1), rfc822: isEnglish) }
            }
            for spelling in language.weekdays { add(spelling, .weekday, rfc822: isEnglish) }
        }
        for spelling in DateLanguage.connectives { add(spelling, .connective) }
        for spelling in ["kl", "klo"] { add(spelling, .clock) }
        for spelling in ["st", "nd", "rd", "th", "er"] { add(spelling, .ordinal) }
        add("오전", .meridiem(isAfternoon: false))
        add("오후", .meridiem(isAfternoon: true))
        add("년", .unit(.year))
        add("월", .unit(.month))
        add("일", .unit(.day))

        let short = tables.all.filter { key, _ in key.utf8.count <= 8 && key.utf8.allSatisfy { $0 < 0x80 } }
        tables.rfc822 = PackedWords(short.filter { rfc822Keys.contains($0.key) })
        tables.localized = PackedWords(short.filter { !rfc822Keys.contains($0.key) })
        return tables
    }()

    /// One meaning for a spelling two tables give: the same, or a month in
    /// one language and a weekday in another. Anything else is a conflict.
    private static func merge(_ old: DateWord, _ new: DateWord) -> DateWord? {
        if old == new { return old }
        switch (old, new) {
        case (.weekday, .month(let m)), (.month(let m), .weekday), (.monthOrWeekday(let m), .weekday):
            return .monthOrWeekday(m)
        case (.monthOrWeekday(let a), .month(let b)):
            return a == b ? old : nil
        default:
            return nil
        }
    }

    private static let zones: [String: Int] = {
        let hour = 3600
        return [
            "ut": 0, "utc": 0, "gmt": 0, "z": 0, "wet": 0,
            "est": -5 * hour, "edt": -4 * hour, "cst": -6 * hour, "cdt": -5 * hour,
            "mst": -7 * hour, "mdt": -6 * hour, "pst": -8 * hour, "pdt": -7 * hour,
            "ast": -4 * hour, "adt": -3 * hour, "et": -5 * hour, "ct": -6 * hour,
            "mt": -7 * hour, "pt": -8 * hour, "akst": -9 * hour, "akdt": -8 * hour, "hst": -10 * hour,
            "nst": -12_600, "ndt": -9_000,
            "bst": hour, "ist": 19_800, "cet": hour, "cest": 2 * hour, "met": hour, "mest": 2 * hour,
            "mez": hour, "mesz": 2 * hour,
            "west": hour, "eet": 2 * hour, "eest": 3 * hour, "msk": 3 * hour, "jst": 9 * hour, "kst": 9 * hour,
            "hkt": 8 * hour, "sgt": 8 * hour, "awst": 8 * hour, "acst": 34_200, "aest": 10 * hour,
            "aedt": 11 * hour, "nzst": 12 * hour, "nzdt": 13 * hour,
        ]
    }()

    /// A spelling as the tables hold it: lower-cased, accents dropped from
    /// Latin and Greek letters (`Fév` and `Fev`, `März` and `Marz`, `Μάι`
    /// and `Μαι` are one key), composed or decomposed alike.
    static func fold(_ spelling: String) -> String {
        var folded = String.UnicodeScalarView()
        for scalar in spelling.lowercased().unicodeScalars {
            if scalar.value >= 0x300 && scalar.value <= 0x36F { continue }  // combining accents
            folded.append(base(of: scalar))
        }
        return String(folded)
    }

    private static func base(of scalar: Unicode.Scalar) -> Unicode.Scalar {
        switch scalar.value {
        case 0xE0...0xE5: "a"
        case 0xE7: "c"
        case 0xE8...0xEB: "e"
        case 0xEC...0xEF: "i"
        case 0xF1: "n"
        case 0xF2...0xF6, 0xF8, 0x151: "o"
        case 0xF9...0xFC, 0x171: "u"
        case 0xFD, 0xFF: "y"
        case 0x3AC: "α"
        case 0x3AD: "ε"
        case 0x3AE: "η"
        case 0x3AF, 0x3CA, 0x390: "ι"
        case 0x3CC: "ο"
        case 0x3CD, 0x3CB, 0x3B0: "υ"
        case 0x3CE: "ω"
        case 0x3C2: "σ"
        default: scalar
        }
    }

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

    /// An RFC 822 word (English names, zones) by its packed letters.
    static func lookup(packed key: UInt64) -> DateWord? { rfc822.find(key) }
}

/// Words of up to 8 ASCII letters packed into integers and sorted.
struct PackedWords: Sendable {
    private let keys: [UInt64]
    private let words: [DateWord]

    init(_ entries: [String: DateWord]) {
        let sorted = entries.map { (DateWord.pack($0.key.utf8), $0.value) }.sorted { $0.0 < $1.0 }
        keys = sorted.map(\.0)
        words = sorted.map(\.1)
    }

    func find(_ key: UInt64) -> DateWord? {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < keys.count && keys[low] == key ? words[low] : nil
    }
}
