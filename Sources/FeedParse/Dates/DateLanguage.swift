/// Month and weekday names of one language, as feeds write them: full names,
/// the abbreviations in use, and the case forms dates take (Finnish
/// `syyskuuta`, Greek `Απριλίου`). Written with their accents; the spellings
/// without them (`Fev`, `Marz`, `Sab`) are the same keys once folded
/// (`DateWord.fold`), and a trailing dot or any case is read alike.
struct DateLanguage: Sendable {
    let name: String
    /// Twelve lists, January first.
    let months: [[String]]
    let weekdays: [String]

    static let all: [DateLanguage] = [
        english, german, french, spanish, portuguese, italian, dutch, swedish, danish, norwegian, finnish,
        hungarian, greek,
    ]

    /// Words that only join a date's parts: Spanish and Portuguese `de`, `del`
    /// (`24 de abril de 2018`), Portuguese `às`, French `le`, German `den`,
    /// `um`, `Uhr` (also Danish and Norwegian `den`), Dutch `om`, English `of`.
    /// (French `à` is left out: folded, it is the military zone `A`.)
    static let connectives = ["de", "del", "às", "le", "den", "um", "uhr", "om", "of"]

    static let english = DateLanguage(
        name: "English",
        months: [
            ["jan", "january"], ["feb", "february"], ["mar", "march"], ["apr", "april"], ["may"], ["jun", "june"],
            ["jul", "july"], ["aug", "august"], ["sep", "sept", "september"], ["oct", "october"],
            ["nov", "november"], ["dec", "december"],
        ],
        weekdays: [
            "mon", "monday", "tue", "tues", "tuesday", "wed", "weds", "wednesday", "thu", "thur", "thurs",
            "thursday", "fri", "friday", "sat", "saturday", "sun", "sunday",
        ])

    static let german = DateLanguage(
        name: "German",
        months: [
            ["januar", "jänner", "jan", "jän"], ["februar", "feber", "feb"], ["märz", "mär", "mrz"],
            ["april", "apr"], ["mai"], ["juni", "jun"], ["juli", "jul"], ["august", "aug"],
            ["september", "sept", "sep"], ["oktober", "okt"], ["november", "nov"], ["dezember", "dez"],
        ],
        weekdays: [
            "montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonnabend", "sonntag",
            "mo", "di", "mi", "do", "fr", "sa", "so", "mon", "die", "mit", "don", "fre", "sam", "son",
        ])

    static let french = DateLanguage(
        name: "French",
        months: [
            ["janvier", "janv", "jan"], ["février", "févr", "fév"], ["mars"], ["avril", "avr"], ["mai"],
            ["juin"], ["juillet", "juil"], ["août"], ["septembre", "sept"], ["octobre", "oct"],
            ["novembre", "nov"], ["décembre", "déc"],
        ],
        weekdays: [
            "lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche",
            "lun", "mar", "mer", "jeu", "ven", "sam", "dim",
        ])

    static let spanish = DateLanguage(
        name: "Spanish",
        months: [
            ["enero", "ene"], ["febrero", "feb"], ["marzo", "mar"], ["abril", "abr"], ["mayo", "may"],
            ["junio", "jun"], ["julio", "jul"], ["agosto", "ago"], ["septiembre", "setiembre", "sept", "sep", "set"],
            ["octubre", "oct"], ["noviembre", "nov"], ["diciembre", "dic"],
        ],
        weekdays: [
            "lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo",
            "lun", "mar", "mié", "jue", "vie", "sáb", "dom",
        ])

    static let portuguese = DateLanguage(
        name: "Portuguese",
        months: [
            ["janeiro", "jan"], ["fevereiro", "fev"], ["março", "mar"], ["abril", "abr"], ["maio", "mai"],
            ["junho", "jun"], ["julho", "jul"], ["agosto", "ago"], ["setembro", "set"], ["outubro", "out"],
            ["novembro", "nov"], ["dezembro", "dez"],
        ],
        // `segunda-feira` is read as `segunda`, a hyphen, `feira`.
        weekdays: [
            "segunda", "terça", "quarta", "quinta", "sexta", "feira", "sábado", "domingo",
            "seg", "ter", "qua", "qui", "sex", "sáb", "dom",
        ])

    static let italian = DateLanguage(
        name: "Italian",
        months: [
            ["gennaio", "gen"], ["febbraio", "feb"], ["marzo", "mar"], ["aprile", "apr"], ["maggio", "mag"],
            ["giugno", "giu"], ["luglio", "lug"], ["agosto", "ago"], ["settembre", "sett", "set"],
            ["ottobre", "ott"], ["novembre", "nov"], ["dicembre", "dic"],
        ],
        weekdays: [
            "lunedì", "martedì", "mercoledì", "giovedì", "venerdì", "sabato", "domenica",
            "lun", "mar", "mer", "gio", "ven", "sab", "dom",
        ])

    /// `maa` (maart, and maandag) is left out: Dutch feeds write `mrt` and `ma`.
    static let dutch = DateLanguage(
        name: "Dutch",
        months: [
            ["januari", "jan"], ["februari", "feb"], ["maart", "mrt"], ["april", "apr"], ["mei"], ["juni", "jun"],
            ["juli", "jul"], ["augustus", "aug"], ["september", "sept", "sep"], ["oktober", "okt"],
            ["november", "nov"], ["december", "dec"],
        ],
        weekdays: [
            "maandag", "dinsdag", "woensdag", "donderdag", "vrijdag", "zaterdag", "zondag",
            "ma", "di", "wo", "do", "vr", "za", "zo", "din", "woe", "don", "vri", "zat", "zon",
        ])

    static let swedish = DateLanguage(
        name: "Swedish",
        months: [
            ["januari", "jan"], ["februari", "feb"], ["mars", "mar"], ["april", "apr"], ["maj"], ["juni", "jun"],
            ["juli", "jul"], ["augusti", "aug"], ["september", "sept", "sep"], ["oktober", "okt"],
            ["november", "nov"], ["december", "dec"],
        ],
        weekdays: [
            "måndag", "tisdag", "onsdag", "torsdag", "fredag", "lördag", "söndag",
            "mån", "tis", "ons", "tor", "tors", "fre", "lör", "sön",
        ])

    static let danish = DateLanguage(
        name: "Danish",
        months: [
            ["januar", "jan"], ["februar", "feb"], ["marts", "mar"], ["april", "apr"], ["maj"], ["juni", "jun"],
            ["juli", "jul"], ["august", "aug"], ["september", "sept", "sep"], ["oktober", "okt"],
            ["november", "nov"], ["december", "dec"],
        ],
        weekdays: [
            "mandag", "tirsdag", "onsdag", "torsdag", "fredag", "lørdag", "søndag",
            "man", "tir", "tirs", "ons", "tor", "tors", "fre", "lør", "søn",
        ])

    /// Bokmål, and the Nynorsk day names.
    static let norwegian = DateLanguage(
        name: "Norwegian",
        months: [
            ["januar", "jan"], ["februar", "feb"], ["mars", "mar"], ["april", "apr"], ["mai"], ["juni", "jun"],
            ["juli", "jul"], ["august", "aug"], ["september", "sept", "sep"], ["oktober", "okt"],
            ["november", "nov"], ["desember", "des"],
        ],
        weekdays: [
            "mandag", "tirsdag", "onsdag", "torsdag", "fredag", "lørdag", "søndag",
            "måndag", "tysdag", "laurdag", "sundag", "man", "tir", "ons", "tor", "fre", "lør", "søn",
        ])

    /// Nominative, the partitive dates use (`24. syyskuuta 2018`), the short
    /// stems (`syys`), and CLDR's abbreviations (`syysk.`).
    static let finnish = DateLanguage(
        name: "Finnish",
        months: [
            "tammi", "helmi", "maalis", "huhti", "touko", "kesä", "heinä", "elo", "syys", "loka", "marras", "joulu",
        ].map { [$0 + "kuu", $0 + "kuuta", $0, $0 + "k"] },
        weekdays: [
            "maanantai", "tiistai", "keskiviikko", "torstai", "perjantai", "lauantai", "sunnuntai",
            "ma", "ti", "ke", "to", "pe", "la", "su",
        ])

    /// With feedparser's spellings (`februári`, `máujus`) beside the standard ones.
    static let hungarian = DateLanguage(
        name: "Hungarian",
        months: [
            ["január", "jan"], ["február", "februári", "febr", "feb"], ["március", "márc"], ["április", "ápr"],
            ["május", "máujus", "máj"], ["június", "jún"], ["július", "júl"], ["augusztus", "aug"],
            ["szeptember", "szept"], ["október", "okt"], ["november", "nov"], ["december", "dec"],
        ],
        weekdays: ["hétfő", "kedd", "szerda", "csütörtök", "péntek", "szombat", "vasárnap", "sze", "cs", "szo"])

    /// feedparser's abbreviations (with its `Μάώ`, `Ιον`, `Ιολ`), and the
    /// full names in the nominative and in the genitive dates use.
    static let greek = DateLanguage(
        name: "Greek",
        months: [
            ["ιαν", "ιανουάριος", "ιανουαρίου"], ["φεβ", "φεβρουάριος", "φεβρουαρίου"],
            ["μάρ", "μάώ", "μαώ", "μάρτιος", "μαρτίου"], ["απρ", "απρίλιος", "απριλίου"],
            ["μάι", "μάϊ", "μαΐ", "μάιος", "μαΐου"], ["ιούν", "ιον", "ιούνιος", "ιουνίου"],
            ["ιούλ", "ιολ", "ιούλιος", "ιουλίου"], ["αύγ", "αύγουστος", "αυγούστου"],
            ["σεπ", "σεπτέμβριος", "σεπτεμβρίου"], ["οκτ", "οκτώβριος", "οκτωβρίου"],
            ["νοέ", "νοέμβριος", "νοεμβρίου"], ["δεκ", "δεκέμβριος", "δεκεμβρίου"],
        ],
        weekdays: [
            "κυρ", "δευ", "τρι", "τετ", "πεμ", "παρ", "σαβ",
            "κυριακή", "δευτέρα", "τρίτη", "τετάρτη", "πέμπτη", "παρασκευή", "σάββατο",
        ])
}
