/// What an option's value (or an operand) is, for completing it: read from
/// its placeholder, so the declarations need say nothing more.
enum ValueKind: Sendable, Equatable {
    /// A flag: no value.
    case none
    /// A path (`FILE`, `FILE.xsl`, `PATH`).
    case files
    /// A folder (`DIR`).
    case directories
    /// One of a few words (`keep|clamp|drop`).
    case words([String])
    /// Anything else (`N`, `URL`, `TEXT`, `DATE|AGE`, `DB`): nothing to offer.
    case text

    init(placeholder: String?) {
        guard let placeholder else {
            self = .none
            return
        }
        let words = placeholder.split(separator: "|").map(String.init)
        if words.count > 1, words.allSatisfy({ $0.allSatisfy { $0.isLowercase } }) {
            self = .words(words)
        } else if placeholder.hasPrefix("FILE") || placeholder == "PATH" {
            self = .files
        } else if placeholder == "DIR" {
            self = .directories
        } else {
            self = .text
        }
    }
}
