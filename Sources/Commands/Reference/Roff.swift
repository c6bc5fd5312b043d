/// Text made safe for roff (man(7)): what the man page writes goes through here.
enum Roff {
    /// Prose: backslashes escaped, a dash that starts a word (`--limit`, `-o`, a lone `-`)
    /// written as the minus `\-` so it can be copied as typed (a hyphen inside a word stays
    /// a hyphen), non-ASCII as `\[uXXXX]`, and a line that would start with `.` or `'` (a
    /// request) guarded by `\&`. An ellipsis is written `...`: a terminal without UTF-8 (man in
    /// the C locale) has no glyph for it.
    static func text(_ text: String) -> String { escaped(text, everyDashAMinus: false) }

    /// Code (a command line, an option's name): every dash a minus.
    static func code(_ text: String) -> String { escaped(text, everyDashAMinus: true) }

    /// Part of a line: escaped as prose, not guarded (it does not start the line).
    static func fragment(_ text: String) -> String { escaped(text, everyDashAMinus: false, guarded: false) }

    private static func escaped(_ text: String, everyDashAMinus: Bool, guarded: Bool = true) -> String {
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var escaped = ""
            var previous: Character = " "
            for character in line {
                escaped += escape(character, after: everyDashAMinus ? " " : previous)
                previous = character
            }
            if guarded && (escaped.hasPrefix(".") || escaped.hasPrefix("'")) { escaped = "\\&" + escaped }
            lines.append(escaped)
        }
        return lines.joined(separator: "\n")
    }

    static func bold(_ text: String) -> String {
        "\\fB" + escaped(text, everyDashAMinus: true, guarded: false) + "\\fR"
    }

    static func italic(_ text: String) -> String { "\\fI" + fragment(text) + "\\fR" }

    /// A synopsis: the command and the options bold, placeholders (upper case) italic.
    static func synopsis(_ line: String) -> String {
        var out = ""
        var word = ""
        func flush() {
            guard !word.isEmpty else { return }
            if word.first == "-" || word.first!.isLowercase && word != "options" {
                out += bold(word)
            } else {
                out += italic(word)
            }
            word = ""
        }
        for character in line {
            if character.isLetter || character.isNumber || character == "-" || character == "_" {
                word.append(character)
            } else {
                flush()
                out += fragment(String(character))
            }
        }
        flush()
        return out
    }

    private static func escape(_ character: Character, after previous: Character) -> String {
        switch character {
        case "\\": return "\\e"
        case "-":
            return previous == " " || previous == "-" || "([{\"'=/|".contains(previous) ? "\\-" : "-"
        case "…": return "..."
        default:
            guard !character.isASCII else { return String(character) }
            return character.unicodeScalars.map { scalar in
                let hex = String(scalar.value, radix: 16, uppercase: true)
                return "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
            }.joined()
        }
    }
}
