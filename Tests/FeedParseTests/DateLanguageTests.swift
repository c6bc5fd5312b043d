import FeedModel
import Testing

@testable import FeedParse

/// Month and day names in other languages, which must be read, not replaced
/// by "now". Each string is of a form feeds in that language write.
@Suite struct DateLanguageTests {
    static let languages: [(String, String, String?)] = [
        // A real feed's dates (uolNoticias), exactly, and with its own zone.
        ("Portuguese", "Seg, 24 Set 2018 10:00:00 +0000", "2018-09-24T10:00:00Z"),
        ("Portuguese", "Seg, 24 Set 2018 19:22:00 -0300", "2018-09-24T22:22:00Z"),
        ("Portuguese", "segunda-feira, 24 de setembro de 2018 às 10:00", "2018-09-24T10:00:00Z"),
        ("Portuguese", "Qua, 05 Dez 2018 08:00:00 -0200", "2018-12-05T10:00:00Z"),
        ("English", "Tuesday, April 24th, 2018 at 10:00 am", "2018-04-24T10:00:00Z"),
        ("English", "April 24, 2018 at 10:00", "2018-04-24T10:00:00Z"),  // `at` is a word, not Atlantic Time
        ("German", "Sa, 24. Mrz 2018 10:00:00 +0100", "2018-03-24T09:00:00Z"),
        ("German", "Montag, den 24. September 2018 um 10:00 Uhr", "2018-09-24T10:00:00Z"),
        ("German", "Mo, 24 Sep 2018 10:00:00 MESZ", "2018-09-24T08:00:00Z"),
        ("French", "lun., 03 déc. 2018 09:00:00 +0100", "2018-12-03T08:00:00Z"),
        ("French", "24 mars 2018", "2018-03-24T00:00:00Z"),
        ("French", "samedi 24 mars 2018 à 10:00", "2018-03-24T10:00:00Z"),
        ("French", "jeu. 1er mars 2018 10:00:00 +0100", "2018-03-01T09:00:00Z"),
        ("Spanish", "martes, 24 de abril de 2018 10:00:00 +0200", "2018-04-24T08:00:00Z"),
        ("Spanish", "24 de Abril de 2018", "2018-04-24T00:00:00Z"),
        ("Spanish", "Mié, 05 Dic 2018 10:00:00 -0300", "2018-12-05T13:00:00Z"),
        ("Italian", "lunedì 24 settembre 2018 10:00", "2018-09-24T10:00:00Z"),
        ("Italian", "gio, 13 dic 2018 18:30:00 +0100", "2018-12-13T17:30:00Z"),
        ("Dutch", "za 24 mrt 2018 10:00:00 +0100", "2018-03-24T09:00:00Z"),
        ("Dutch", "24 maart 2018", "2018-03-24T00:00:00Z"),
        ("Swedish", "mån, 24 sep 2018 10:00:00 +0200", "2018-09-24T08:00:00Z"),
        ("Swedish", "lördag 24 mars 2018 kl. 10:00", "2018-03-24T10:00:00Z"),
        ("Danish", "mandag den 24. september 2018 kl. 10.00", "2018-09-24T10:00:00Z"),
        ("Danish", "lør, 24 marts 2018 10:00:00 +0100", "2018-03-24T09:00:00Z"),
        ("Norwegian", "man. 3. des. 2018 kl. 09.00", "2018-12-03T09:00:00Z"),
        ("Finnish", "ma 24. syyskuuta 2018 klo 10.00", "2018-09-24T10:00:00Z"),
        ("Hungarian", "2018. márc. 24. 10:00", "2018-03-24T10:00:00Z"),
        ("Hungarian", "2004-februári-13T9:15-05:00", "2004-02-13T14:15:00Z"),  // feedparser's spelling
        ("Hungarian", "2004-máujus-13T9:15-05:00", "2004-05-13T14:15:00Z"),
        ("Greek", "Τρί, 24 Απριλίου 2018 10:00:00 +0300", "2018-04-24T07:00:00Z"),
        ("Greek", "Σαβ, 24 Μάώ 2018 12:00:00 EST", "2018-03-24T17:00:00Z"),  // feedparser's spelling
    ]

    @Test(arguments: languages)
    func readsLanguage(_ language: String, _ input: String, _ expected: String?) {
        #expect(DateParser.parse(input)?.rfc3339 == expected, "\(language): \(input)")
    }

    /// `mar` is March in most of these languages and Tuesday in French,
    /// Spanish and Italian: a day only where it leads the string.
    static let collisions: [(String, String?)] = [
        ("mar., 24 abr. 2018 10:00:00 +0200", "2018-04-24T08:00:00Z"),
        ("mar, 27 mar 2018 10:00:00 +0200", "2018-03-27T08:00:00Z"),
        ("mar 24 abr 2018", "2018-04-24T00:00:00Z"),
        ("Mar 24, 2018", "2018-03-24T00:00:00Z"),
        ("Mar. 24, 2018 10:00 PM", "2018-03-24T22:00:00Z"),
        ("Sa, 24. Mär. 2018 10:00:00 +0100", "2018-03-24T09:00:00Z"),
        ("sáb, 24 mar 2018 10:00:00 +0000", "2018-03-24T10:00:00Z"),
        ("Sun Mar 25 10:00:00 +0000 2018", "2018-03-25T10:00:00Z"),
        ("2018 mar 24", "2018-03-24T00:00:00Z"),
        // Still unreadable: nil, never a guess.
        ("24 abr 2018 mar", nil),
        ("Mar 24 2018 Apr", nil),
        ("mar, 2018", nil),
        ("Seg, 24 Xyz 2018 10:00:00 +0000", nil),
        ("24 th 2018", nil),
        ("Seg, 24 Set", nil),
    ]

    @Test(arguments: collisions)
    func resolvesCollisionsByPosition(_ input: String, _ expected: String?) {
        #expect(DateParser.parse(input)?.rfc3339 == expected, "\(input)")
    }

    @Test func theOnlySpellingThatIsBothMonthAndDayIsMar() {
        #expect(DateWord.conflicts.isEmpty, "\(DateWord.conflicts)")
        let both = DateWord.table.filter { if case .monthOrWeekday = $0.value { true } else { false } }
        #expect(both.keys.sorted() == ["mar"])
        #expect(DateWord.table["mar"] == .monthOrWeekday(3))
    }

    /// Every month spelling of every language, as written, upper-cased,
    /// capitalized, with a trailing dot, and without its accents.
    @Test func readsEveryMonthSpelling() {
        for language in DateLanguage.all {
            for (index, spellings) in language.months.enumerated() {
                for spelling in spellings {
                    let forms = [
                        spelling, spelling.uppercased(), spelling.prefix(1).uppercased() + spelling.dropFirst(),
                        spelling + ".", DateWord.fold(spelling),
                    ]
                    for form in forms {
                        let date = DateParser.parse("24 \(form) 2018 10:00:00 +0000")
                        let expected = CivilTime.timestamp(
                            year: 2018, month: index + 1, day: 24, hour: 10, minute: 0, second: 0, offsetSeconds: 0)
                        #expect(date == expected, "\(language.name): \(form)")
                    }
                }
            }
        }
    }

    /// Every day name, as written, upper-cased and without its accents, is decoration.
    @Test func readsEveryDaySpelling() {
        let expected = DateParser.parse("24 Sep 2018 10:00:00 +0000")
        #expect(expected != nil)
        for language in DateLanguage.all {
            for spelling in language.weekdays {
                for form in [spelling, spelling.uppercased(), DateWord.fold(spelling) + "."] {
                    #expect(DateParser.parse("\(form), 24 Sep 2018 10:00:00 +0000") == expected, "\(form)")
                    #expect(DateParser.parse("\(form) 24 Sep 2018 10:00:00 +0000") == expected, "\(form)")
                }
            }
        }
    }

    @Test func accentsMayBeDroppedOrDecomposed() {
        let february = "2018-02-24T00:00:00Z"
        for form in ["Fév", "Fev", "févr.", "FEVR", "Fe\u{301}v", "fevereiro"] {
            #expect(DateParser.parse("24 \(form) 2018")?.rfc3339 == february, "\(form)")
        }
        for form in ["Mär", "Mrz", "März", "Marz", "MÄRZ", "mrt", "Març", "março"] {
            #expect(DateParser.parse("24 \(form) 2018")?.rfc3339 == "2018-03-24T00:00:00Z", "\(form)")
        }
        for form in ["Ter", "Qua", "Qui", "Sex", "Sáb", "Sab", "Dom", "Seg"] {
            #expect(DateParser.parse("\(form), 24 Set 2018")?.rfc3339 == "2018-09-24T00:00:00Z", "\(form)")
        }
        #expect(DateParser.parse("24. März 2018 10:00")?.rfc3339 == "2018-03-24T10:00:00Z")
        #expect(DateParser.parse("24 okt 2018")?.rfc3339 == "2018-10-24T00:00:00Z")
        #expect(DateParser.parse("24 dez 2018")?.rfc3339 == "2018-12-24T00:00:00Z")
    }

    /// The no-break spaces localized formatters put between words.
    @Test func readsNoBreakSpaces() {
        #expect(DateParser.parse("24\u{A0}mars\u{A0}2018")?.rfc3339 == "2018-03-24T00:00:00Z")
        #expect(DateParser.parse("Apr 24, 2018, 10:00\u{202F}PM")?.rfc3339 == "2018-04-24T22:00:00Z")
    }

    /// An accented letter is never a zone letter (`à` is not military `A`).
    @Test func accentedWordsAreNotZones() {
        #expect(DateWord.fold("É") == "e")
        #expect(DateParser.parse("24 mars 2018 10:00 é") == nil)  // not zone E (-5 h)
        #expect(DateParser.parse("24 mars 2018 10:00 E")?.rfc3339 == "2018-03-24T15:00:00Z")
        #expect(DateParser.parse("24 mars 2018 10:00 à")?.rfc3339 == "2018-03-24T10:00:00Z")  // not zone A
    }

    /// Localized names cost nothing on the fast path: it declines them, and
    /// the word scanner reads them.
    @Test func fastPathLeavesLocalizedNamesToTheWordScanner() {
        for text in ["Seg, 24 Set 2018 10:00:00 +0000", "Mon, 24 Okt 2018 10:00:00 +0000", "24 Dez 2018 10:00:00 GMT"] {
            #expect(text.utf8.withContiguousStorageIfAvailable { RFC822FastPath.scan($0) } ?? nil == nil, "\(text)")
            #expect(DateParser.parse(text) != nil, "\(text)")
        }
        #expect(DateWord.lookup(packed: DateWord.pack("seg".utf8)) == nil)
        #expect(DateWord.lookup(packed: DateWord.pack("mar".utf8))?.month == 3)
        let tuesday = "Tue, 24 Mar 2018 10:00:00 +0000"
        let fast = tuesday.utf8.withContiguousStorageIfAvailable { RFC822FastPath.scan($0) } ?? nil
        #expect(fast?.rfc3339 == "2018-03-24T10:00:00Z")
    }
}
