/// A template in htmltmpl's language (Planet 2.0's and Venus's `.tmpl`),
/// compiled once and rendered as many times as asked:
/// - `<TMPL_VAR name>` with `ESCAPE="HTML"` (`&<>"'` escaped), `ESCAPE="URL"`
///   (as Python's `quote_plus`) or none, and `GLOBAL="1"`. Without
///   `ESCAPE`, a markup value (a title, a content, sanitized) is written as
///   it is, as Venus does (it turns htmltmpl's automatic escaping off), and
///   a text value (an author's name, a plain title) escaped: it reads the
///   same, and cannot become markup whatever the template forgot. Where a
///   value lands inside a tag, an attribute or a comment (`MarkupContext`,
///   read from the template), every value is escaped so that it cannot end
///   what holds it;
/// - `<TMPL_LOOP Name>` … `</TMPL_LOOP>` with the magic variables
///   `__FIRST__`, `__LAST__`, `__INNER__`, `__ODD__`, `__PASS__`,
///   `__PASSTOTAL__` and `__EVERY__n`;
/// - `<TMPL_IF name>`, `<TMPL_UNLESS name>`, `<TMPL_ELSE>` and their ends;
/// - `<TMPL_INCLUDE file>` from the `inc` folder beside the template, five
///   levels deep at most (deeper ones are left out, as htmltmpl does), and
///   bounded in number, size and time (`Parser`);
/// - `<!-- TMPL_… -->` as the same statements; `### ` to the end of a line
///   is a comment; a statement alone on its line takes its line with it.
///
/// Inside a loop a name is looked up in the loop's pass only, unless the
/// statement says `GLOBAL="1"` (htmltmpl's `global_vars` is off in Venus).
/// A name that is set nowhere is empty (a capitalized one, a loop of no pass).
public struct HTMLTemplate: Sendable {
    /// Why a template cannot be used: its file, line and what is wrong.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    let nodes: [Node]

    /// Seconds compiling may take when nothing says otherwise (`--theme-timeout`'s default).
    public static let defaultTimeLimit: Double = 60

    /// - Parameters:
    ///   - name: the template's file, for messages.
    ///   - include: reads an included file (its name as the template writes
    ///     it); nil when it cannot be read.
    ///   - timeLimit: seconds compiling may take, includes and all.
    public init(
        text: String, name: String, include: @escaping (String) -> String? = { _ in nil },
        timeLimit: Double = defaultTimeLimit
    ) throws(Failure) {
        var parser = Parser(include: include, deadline: .now + .milliseconds(Int64(timeLimit * 1000)))
        nodes = try parser.parse(text, name: name, depth: 0, nesting: 0)
    }

    /// The template filled with `values`.
    public func render(_ values: [String: TemplateValue]) -> String {
        var out = ""
        out.reserveCapacity(64 << 10)
        var scopes = Scopes(top: values)
        Renderer.render(nodes, scopes: &scopes, into: &out)
        return out
    }
}

/// A template variable's value.
public enum TemplateValue: Sendable, Equatable {
    /// Text: escaped unless the template asks for URL escaping.
    case text(String)
    /// Markup (safe HTML): written as it is unless the template asks to escape it.
    case markup(String)
    case number(Int)
    /// One set of values per pass.
    case loop([[String: TemplateValue]])

    /// Python's truth, as htmltmpl tests it: an empty text, 0, a loop of no pass are false.
    var isTrue: Bool {
        switch self {
        case .text(let text), .markup(let text): !text.isEmpty
        case .number(let number): number != 0
        case .loop(let passes): !passes.isEmpty
        }
    }

    var text: String {
        switch self {
        case .text(let text), .markup(let text): text
        case .number(let number): String(number)
        case .loop(let passes): String(passes.count)
        }
    }
}

indirect enum Node: Sendable {
    case text(String)
    case variable(name: String, escape: Escape, global: Bool, context: MarkupContext)
    case loop(name: String, body: [Node])
    case condition(name: String, global: Bool, negated: Bool, then: [Node], otherwise: [Node])
}

enum Escape: Sendable {
    case none, html, url
}

/// The loops being rendered, innermost last.
struct Scopes {
    let top: [String: TemplateValue]
    var passes: [(values: [String: TemplateValue], pass: Int, total: Int)] = []

    init(top: [String: TemplateValue]) { self.top = top }

    func value(_ name: String, global: Bool) -> TemplateValue? {
        if name.hasPrefix("__"), let loop = passes.last { return magic(name, pass: loop.pass, total: loop.total) }
        if let value = (passes.last?.values ?? top)[name] {
            if case .loop(let passes) = value { return .number(passes.count) }
            return value
        }
        guard global else { return nil }
        // The nearest enclosing scope that has it as an ordinary value.
        for scope in passes.dropLast().reversed().map(\.values) + [top] {
            if let value = scope[name], !value.isLoop { return value }
        }
        return nil
    }

    func passes(of name: String) -> [[String: TemplateValue]] {
        if case .loop(let passes)? = (passes.last?.values ?? top)[name] { return passes }
        return []
    }

    private func magic(_ name: String, pass: Int, total: Int) -> TemplateValue? {
        func flag(_ value: Bool) -> TemplateValue { .number(value ? 1 : 0) }
        switch name {
        case "__FIRST__": return flag(pass == 0)
        case "__LAST__": return flag(pass == total - 1)
        case "__INNER__": return flag(pass != 0 && pass != total - 1)
        case "__ODD__": return flag((pass + 1) % 2 != 0)
        case "__PASS__": return .number(pass + 1)
        case "__PASSTOTAL__": return .number(total)
        default:
            // Never true on the first or the last pass.
            guard name.hasPrefix("__EVERY__"), let every = Int(name.dropFirst(9)), every > 0 else { return nil }
            return flag(pass != 0 && pass != total - 1 && (pass + 1) % every == 0)
        }
    }
}

extension TemplateValue {
    var isLoop: Bool { if case .loop = self { true } else { false } }
}

enum Renderer {
    static func render(_ nodes: [Node], scopes: inout Scopes, into out: inout String) {
        for node in nodes {
            switch node {
            case .text(let text):
                out += text
            case .variable(let name, let escape, let global, let context):
                guard let value = scopes.value(name, global: global) else { continue }
                switch (escape, value) {
                case (.url, _): escapeURL(value.text, into: &out)
                case (.none, .number(let number)): out += String(number)
                case (.none, .markup(let markup)):
                    // Markup between tags is written as it is; anywhere else it must not end what holds it.
                    if context == .text {
                        out += markup
                    } else {
                        escapeHTML(markup, keepingReferences: true, in: context, into: &out)
                    }
                default: escapeHTML(value.text, keepingReferences: false, in: context, into: &out)
                }
            case .loop(let name, let body):
                let passes = scopes.passes(of: name)
                for (index, values) in passes.enumerated() {
                    scopes.passes.append((values, index, passes.count))
                    render(body, scopes: &scopes, into: &out)
                    scopes.passes.removeLast()
                }
            case .condition(let name, let global, let negated, let then, let otherwise):
                let holds = scopes.value(name, global: global)?.isTrue ?? false
                render(holds != negated ? then : otherwise, scopes: &scopes, into: &out)
            }
        }
    }

    /// As Python's `cgi.escape(value, quote=1)`, and `'` too: a value can
    /// end neither a text nor an attribute quoted either way. Inside a tag
    /// (an unquoted attribute value), blanks, `=` and `` ` `` too, so a value
    /// cannot start an attribute of its own. `keepingReferences`: `&` stays
    /// (markup whose character references are meant).
    static func escapeHTML(_ text: String, keepingReferences: Bool, in context: MarkupContext, into out: inout String) {
        var unquoted = false
        if case .tag = context { unquoted = true }
        for character in text {
            switch character {
            case "&": out += keepingReferences ? "&" : "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case " " where unquoted: out += "&#32;"
            case "\t" where unquoted: out += "&#9;"
            case "\n" where unquoted: out += "&#10;"
            case "\r\n" where unquoted: out += "&#13;&#10;"
            case "\r" where unquoted: out += "&#13;"
            case "\u{0C}" where unquoted: out += "&#12;"
            case "=" where unquoted: out += "&#61;"
            case "`" where unquoted: out += "&#96;"
            default: out.append(character)
            }
        }
    }

    /// As Python's `urllib.quote_plus`: letters, digits and `_.-` stay, a space is `+`.
    static func escapeURL(_ text: String, into out: inout String) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                out += "+"
            default:
                out +=
                    "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 15, radix: 16, uppercase: true)
            }
        }
    }
}
