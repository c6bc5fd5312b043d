/// One option of a command whose settings are `Settings`: every name, the
/// placeholder of its value, its help and its default are declared here
/// once, and both the parser and the help text read them from here.
struct Option<Settings>: Sendable {
    /// Short name first: `["-o", "--output"]`.
    var names: [String]
    /// The value's placeholder (`FILE`, `N`); nil for a flag.
    var placeholder: String?
    /// One line or more (`\n`) of help.
    var help: String
    /// The default, as the help shows it, read from the default settings.
    var shownDefault: (@Sendable (Settings) -> String?)?
    /// Applies the option (a flag gets ""); throws only `UsageError`.
    var apply: @Sendable (inout Settings, String) throws -> Void

    init(
        _ names: String..., value placeholder: String? = nil, help: String,
        default shownDefault: (@Sendable (Settings) -> String?)? = nil,
        apply: @escaping @Sendable (inout Settings, String) throws -> Void
    ) {
        self.names = names
        self.placeholder = placeholder
        self.help = help
        self.shownDefault = shownDefault
        self.apply = apply
    }

    /// The name users know it by: its long one.
    var name: String { names.last! }
}

/// Options shown together under a heading.
struct OptionGroup<Settings>: Sendable {
    var title: String
    var options: [Option<Settings>]

    init(_ title: String, _ options: [Option<Settings>]) {
        self.title = title
        self.options = options
    }
}

/// What a command line asks of one command.
enum Request<Settings> {
    case run(Settings)
    case help
}

/// A command's whole interface: its name, synopsis, options and operands.
/// `--help`, the man page and the shell completions are all read from it.
struct CommandInterface<Settings>: Sendable {
    /// As typed: `feedmerge`, `feedmerge parse`.
    var name: String
    /// What it does, in the words of the overview's list of commands.
    var brief: String
    var synopsis: String
    var summary: String
    var groups: [OptionGroup<Settings>]
    /// The operands' placeholder in the synopsis (`SOURCE`, `FILE`, `URL`).
    var operandName: String
    /// Takes one operand (a SOURCE, a FILE, a URL; `-` is one too).
    var operand: @Sendable (inout Settings, String) throws -> Void
    /// The words its first operand may be (`state copy`, `help planet`); empty when any.
    var subcommands: [String] = []
    /// Text after the options (rules).
    var notes: String = ""
    /// Whether the help ends with the exit status table (`ExitStatus.table`).
    var listsExitStatus = false
    /// Command lines shown as examples (`--help` shows the commands, the man page both).
    var examples: [(purpose: String, command: String)] = []

    var options: [Option<Settings>] { groups.flatMap(\.options) }

    /// Scans `arguments` into `settings`: `--name value`, `--name=value`,
    /// `-o value`, flags, operands in between; `--` ends the options.
    func parse(_ arguments: some Sequence<String>, into settings: Settings) throws(UsageError) -> Request<Settings> {
        do {
            return try scan(arguments, into: settings)
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError("\(error)")  // the options throw only UsageError
        }
    }

    private func scan(_ arguments: some Sequence<String>, into settings: Settings) throws -> Request<Settings> {
        var settings = settings
        var iterator = arguments.makeIterator()
        var onlyOperands = false
        while let argument = iterator.next() {
            if onlyOperands || argument == "-" || !argument.hasPrefix("-") {
                try operand(&settings, argument)
                continue
            }
            if argument == "--" {
                onlyOperands = true
                continue
            }
            if argument == "-h" || argument == "--help" { return .help }
            var name = argument
            var attached: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                attached = String(argument[argument.index(after: equals)...])
            }
            guard let option = options.first(where: { $0.names.contains(name) }) else {
                throw UsageError("unknown option \(name)" + suggestion(for: name))
            }
            if option.placeholder == nil {
                guard attached == nil else { throw UsageError("\(option.name) takes no value") }
                try option.apply(&settings, "")
                continue
            }
            guard let value = attached ?? iterator.next() else {
                throw UsageError("\(option.name) needs a value (\(option.name) \(option.placeholder!))")
            }
            try option.apply(&settings, value)
        }
        return .run(settings)
    }

    /// `; did you mean --limit?` for a near miss.
    private func suggestion(for name: String) -> String {
        let candidates = options.flatMap(\.names).filter { $0.hasPrefix("--") }
        let near = candidates.min { editDistance($0, name) < editDistance($1, name) }
        guard let near, near.hasPrefix(name) || editDistance(near, name) <= 2 else { return "" }
        return "; did you mean \(near)?"
    }

    /// The help text, with each option's default read from `defaults`.
    func help(defaults: Settings) -> String {
        var lines = ["usage: \(synopsis)", "", summary]
        for group in groups {
            lines.append("")
            lines.append(group.title + ":")
            for option in group.options {
                var label = option.names.joined(separator: ", ")
                if let placeholder = option.placeholder { label += " " + placeholder }
                if !option.names[0].hasPrefix("--") || option.names.count > 1 {
                    label = "  " + label
                } else {
                    label = "      " + label
                }
                var help = option.help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                if let shown = option.shownDefault?(defaults) { help[help.count - 1] += " (default: \(shown))" }
                let column = 27
                if label.count + 2 <= column {
                    lines.append(label.padding(to: column) + help[0])
                } else {
                    lines.append(label)
                    lines.append("".padding(to: column) + help[0])
                }
                for more in help.dropFirst() { lines.append("".padding(to: column) + more) }
            }
        }
        if !notes.isEmpty {
            lines.append("")
            lines.append(notes)
        }
        if listsExitStatus {
            lines.append("")
            lines.append(ExitStatus.table)
        }
        if !examples.isEmpty {
            lines.append("")
            lines.append("Examples:")
            lines += examples.map { "  " + $0.command }
        }
        return lines.joined(separator: "\n")
    }
}

extension String {
    fileprivate func padding(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}

/// Levenshtein distance, for suggesting the option meant.
private func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    var previous = Array(0...b.count)
    for i in 1...max(a.count, 1) where !a.isEmpty {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in stride(from: 1, through: b.count, by: 1) {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
