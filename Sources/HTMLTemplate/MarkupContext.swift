/// Where a template's value lands in the HTML around it, read from the
/// template's own text at compile time (as Go's `html/template` does): a
/// value inside a tag or an attribute is escaped so that it cannot end the
/// attribute or the tag, whatever the template forgot to ask.
enum MarkupContext: Sendable, Equatable {
    /// Between tags: text content.
    case text
    /// Inside a start or end tag, not in a quoted value (an unquoted value ends at a space).
    case tag(name: String)
    /// Inside a `"…"` or `'…'` attribute value.
    case quoted(quote: Unicode.Scalar, tag: String)
    /// Inside `<!-- … -->`.
    case comment
    /// Inside `script` or `style` (or another raw-text element), until its end tag.
    case rawText(name: String)

    /// Elements whose content HTML does not parse as markup.
    static let rawTextElements: Set<String> = [
        "script", "style", "textarea", "title", "xmp", "iframe", "noembed",
        "noframes", "noscript", "plaintext",
    ]

    /// The context after the template's literal `text`, starting from this one.
    func after(_ text: String) -> MarkupContext {
        let scalars = Array(text.unicodeScalars)
        var context = self
        var index = 0
        func starts(_ word: String, at position: Int) -> Bool {
            var at = position
            for scalar in word.unicodeScalars {
                guard at < scalars.count, Self.lower(scalars[at]) == scalar else { return false }
                at += 1
            }
            return true
        }
        while index < scalars.count {
            let scalar = scalars[index]
            switch context {
            case .text:
                if scalar == "<" {
                    if starts("!--", at: index + 1) {
                        context = .comment
                        index += 3
                    } else if index + 1 < scalars.count, Self.isLetter(scalars[index + 1]) || scalars[index + 1] == "/"
                    {
                        var name = ""
                        var at = index + 1
                        if scalars[at] == "/" { at += 1 }
                        while at < scalars.count, Self.isLetter(scalars[at]) || ("0"..."9").contains(scalars[at]) {
                            name.unicodeScalars.append(Self.lower(scalars[at]))
                            at += 1
                        }
                        context = .tag(name: scalars[index + 1] == "/" ? "/" + name : name)
                        index = at - 1
                    }
                }
            case .tag(let name):
                if scalar == "\"" || scalar == "'" {
                    context = .quoted(quote: scalar, tag: name)
                } else if scalar == ">" {
                    context = Self.rawTextElements.contains(name) ? .rawText(name: name) : .text
                }
            case .quoted(let quote, let tag):
                if scalar == quote { context = .tag(name: tag) }
            case .comment:
                if scalar == "-", starts("->", at: index + 1) {
                    context = .text
                    index += 2
                }
            case .rawText(let name):
                if scalar == "<", starts("/" + name, at: index + 1) {
                    context = .tag(name: "/" + name)
                    index += name.unicodeScalars.count + 1
                }
            }
            index += 1
        }
        return context
    }

    private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    private static func lower(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32)! : scalar
    }
}
