/// Reads a template into nodes, as htmltmpl's compiler tokenizes it, its
/// includes read in place. Bounded whatever the template says: includes
/// five levels deep (deeper ones left out, as htmltmpl does), at most
/// `maximumIncludes` of them and `maximumExpandedLength` bytes of text in
/// all, statements nested at most `maximumNesting` deep (rendering recurses
/// once a level), and the time the caller allows.
struct Parser {
    let include: (String) -> String?
    /// When compiling must have ended.
    let deadline: ContinuousClock.Instant
    /// Where a value written now lands (`MarkupContext`), carried across includes.
    private var context = MarkupContext.text
    private var includes = 0
    private var expanded = 0
    /// Each included file read once.
    private var read: [String: String?] = [:]

    static let maximumIncludes = 1000
    static let maximumExpandedLength = 8 << 20
    static let maximumNesting = 200

    init(include: @escaping (String) -> String?, deadline: ContinuousClock.Instant) {
        self.include = include
        self.deadline = deadline
    }

    /// An open statement and what it holds so far.
    private struct Open {
        enum Kind { case loop, condition(negated: Bool) }
        var kind: Kind
        var name: String
        var global: Bool
        var line: Int
        var then: [Node] = []
        var otherwise: [Node]?
    }

    /// - Parameters:
    ///   - name: the file `text` came from, for messages.
    ///   - depth: how many includes deep it is.
    ///   - nesting: how many statements around it are open.
    mutating func parse(_ text: String, name: String, depth: Int, nesting: Int) throws(HTMLTemplate.Failure)
        -> [Node]
    {
        expanded += text.utf8.count
        guard expanded <= Self.maximumExpandedLength else {
            throw HTMLTemplate.Failure(
                description: "\(name): its includes come to more than \(Self.maximumExpandedLength >> 20) MiB of text")
        }
        var stack: [Open] = []
        var top: [Node] = []
        func append(_ node: Node) {
            if stack.isEmpty {
                top.append(node)
            } else if stack[stack.count - 1].otherwise != nil {
                stack[stack.count - 1].otherwise!.append(node)
            } else {
                stack[stack.count - 1].then.append(node)
            }
        }
        for token in Self.tokens(Self.withoutComments(text)) {
            switch token {
            case .text(let text):
                if !text.isEmpty {
                    append(.text(text))
                    context = context.after(text)
                }
            case .statement(let statement, let line):
                func fail(_ message: String) -> HTMLTemplate.Failure {
                    HTMLTemplate.Failure(description: "\(name):\(line): \(message)")
                }
                guard ContinuousClock.now < deadline else { throw fail("compiling it took longer than its time limit") }
                let words = statement.words
                switch statement.directive {
                case "TMPL_VAR":
                    guard let variable = words.name else { throw fail("<TMPL_VAR> names no variable") }
                    let escape: Escape
                    switch words.parameters["ESCAPE"]?.uppercased() {
                    case "HTML", "1": escape = .html
                    case "URL": escape = .url
                    default: escape = .none
                    }
                    append(
                        .variable(
                            name: variable, escape: escape, global: words.parameters["GLOBAL"] == "1",
                            context: context))
                case "TMPL_LOOP", "TMPL_IF", "TMPL_UNLESS":
                    guard let variable = words.name else { throw fail("<\(statement.directive)> names no variable") }
                    guard nesting + stack.count < Self.maximumNesting else {
                        throw fail("statements nest more than \(Self.maximumNesting) deep")
                    }
                    let kind: Open.Kind =
                        statement.directive == "TMPL_LOOP"
                        ? .loop : .condition(negated: statement.directive == "TMPL_UNLESS")
                    stack.append(
                        Open(kind: kind, name: variable, global: words.parameters["GLOBAL"] == "1", line: line))
                case "TMPL_ELSE":
                    guard let last = stack.last, case .condition = last.kind, last.otherwise == nil else {
                        throw fail("<TMPL_ELSE> outside a <TMPL_IF> or <TMPL_UNLESS>")
                    }
                    stack[stack.count - 1].otherwise = []
                case "/TMPL_LOOP", "/TMPL_IF", "/TMPL_UNLESS":
                    guard let open = stack.popLast() else { throw fail("<\(statement.directive)> closes nothing") }
                    switch (open.kind, statement.directive) {
                    case (.loop, "/TMPL_LOOP"):
                        append(.loop(name: open.name, body: open.then))
                    case (.condition(let negated), "/TMPL_IF"), (.condition(let negated), "/TMPL_UNLESS"):
                        append(
                            .condition(
                                name: open.name, global: open.global, negated: negated, then: open.then,
                                otherwise: open.otherwise ?? []))
                    default:
                        throw fail("<\(statement.directive)> closes the <TMPL_…> of line \(open.line)")
                    }
                case "TMPL_INCLUDE":
                    guard let file = words.name else { throw fail("<TMPL_INCLUDE> names no file") }
                    // Deeper than five levels: left out (htmltmpl's protection against a loop).
                    guard depth < 5 else { continue }
                    includes += 1
                    guard includes <= Self.maximumIncludes else {
                        throw fail("more than \(Self.maximumIncludes) <TMPL_INCLUDE>s in all")
                    }
                    if read[file] == nil { read[file] = .some(include(file)) }
                    guard let included = read[file] ?? nil else {
                        throw fail("<TMPL_INCLUDE \(file)>: cannot be read")
                    }
                    for node in try parse(included, name: file, depth: depth + 1, nesting: nesting + stack.count) {
                        append(node)
                    }
                case "TMPL_GETTEXT":
                    if let text = words.name {
                        append(.text(text))
                        context = context.after(text)
                    }
                case "TMPL_BOUNDARY":
                    continue
                default:
                    throw fail("<\(statement.directive)> is not an htmltmpl statement")
                }
            }
        }
        if let open = stack.last {
            let directive: String
            switch open.kind {
            case .loop: directive = "TMPL_LOOP"
            case .condition(let negated): directive = negated ? "TMPL_UNLESS" : "TMPL_IF"
            }
            throw HTMLTemplate.Failure(
                description: "\(name):\(open.line): <\(directive) \(open.name)> is never closed")
        }
        return top
    }

    /// `### ` and the rest of its line removed (htmltmpl's comments).
    static func withoutComments(_ text: String) -> String {
        guard text.contains("### ") else { return text }
        var out = ""
        var rest = text[...]
        while let start = rest.firstRange(of: "### ") {
            out += rest[..<start.lowerBound]
            rest = rest[start.lowerBound...]
            rest = rest[(rest.firstIndex(where: { $0 == "\n" || $0 == "\r\n" }) ?? rest.endIndex)...]
        }
        return out + rest
    }

    enum Token {
        case text(String)
        case statement(Statement, line: Int)
    }

    struct Statement {
        /// `TMPL_VAR`, `/TMPL_LOOP`, …
        var directive: String
        var words: Words
    }

    struct Words {
        var name: String?
        var parameters: [String: String] = [:]
    }

    /// The text split at statements. As htmltmpl's tokenizer: spaces and
    /// tabs before a statement at the start of a line, and one newline
    /// after it, go with the statement.
    static func tokens(_ text: String) -> [Token] {
        var tokens: [Token] = []
        let scalars = Array(text.unicodeScalars)
        var textStart = 0
        var index = 0
        var line = 1
        var lineOfIndex = 0  // lines counted up to `lineOfIndex`
        func lineAt(_ position: Int) -> Int {
            while lineOfIndex < position {
                if scalars[lineOfIndex] == "\n" { line += 1 }
                lineOfIndex += 1
            }
            return line
        }
        while index < scalars.count {
            guard scalars[index] == "<", let (end, statement) = statement(in: scalars, at: index) else {
                index += 1
                continue
            }
            // Leading blanks on the statement's line are eaten.
            var start = index
            var back = index
            while back > textStart, scalars[back - 1] == " " || scalars[back - 1] == "\t" { back -= 1 }
            if back == 0 || scalars[back - 1] == "\n" { start = back }
            var after = end
            if after < scalars.count, scalars[after] == "\n" {
                after += 1
            } else if after + 1 < scalars.count, scalars[after] == "\r", scalars[after + 1] == "\n" {
                after += 2
            }
            if start > textStart { tokens.append(.text(String(String.UnicodeScalarView(scalars[textStart..<start])))) }
            tokens.append(.statement(statement, line: lineAt(index)))
            textStart = after
            index = after
        }
        if textStart < scalars.count { tokens.append(.text(String(String.UnicodeScalarView(scalars[textStart...])))) }
        return tokens
    }

    /// A statement starting at `<`: `<TMPL_X …>`, `</TMPL_X>`, `<!-- TMPL_X … -->`;
    /// its end (after `>`) and what it says.
    static func statement(in scalars: [Unicode.Scalar], at start: Int) -> (Int, Statement)? {
        var index = start + 1
        func matches(_ text: String) -> Bool {
            let want = Array(text.unicodeScalars)
            guard index + want.count <= scalars.count, Array(scalars[index..<(index + want.count)]) == want else {
                return false
            }
            index += want.count
            return true
        }
        _ = matches("!-- ")
        var directive = matches("/") ? "/" : ""
        guard matches("TMPL_") else { return nil }
        directive += "TMPL_"
        while index < scalars.count, ("A"..."Z").contains(scalars[index]) {
            directive.unicodeScalars.append(scalars[index])
            index += 1
        }
        guard directive.count > (directive.hasPrefix("/") ? 6 : 5) else { return nil }
        // The characters htmltmpl allows in a statement.
        let bodyStart = index
        while index < scalars.count, scalars[index] != ">" {
            let c = scalars[index]
            let allowed =
                c == " " || c == "\"" || c == "/" || c == "." || c == "=" || c == ":" || c == "_" || c == "\\"
                || c == "-" || ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c)
                || c == "\t"
            guard allowed else { return nil }
            index += 1
        }
        guard index < scalars.count else { return nil }
        var body = String(String.UnicodeScalarView(scalars[bodyStart..<index]))
        if body.hasSuffix("--") { body = String(body.dropLast(2)) }
        return (index + 1, Statement(directive: directive, words: words(body)))
    }

    /// `name`, `NAME="name"`, `ESCAPE=HTML`, `GLOBAL="1"`.
    static func words(_ body: String) -> Words {
        var words = Words()
        for word in body.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
            let parts = word.split(separator: "=", maxSplits: 1)
            func unquoted(_ text: Substring) -> String {
                text.count >= 2 && text.first == "\"" && text.last == "\""
                    ? String(text.dropFirst().dropLast()) : String(text)
            }
            if parts.count == 2 {
                let key = parts[0].uppercased()
                if key == "NAME" { words.name = unquoted(parts[1]) } else { words.parameters[key] = unquoted(parts[1]) }
            } else if words.name == nil {
                words.name = unquoted(word)
            }
        }
        return words
    }
}
