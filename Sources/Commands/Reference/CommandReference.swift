/// One command's interface as text, read from the same declarations as its
/// `--help`: what the man page and the shell completions are generated from,
/// so none of them can name an option the parser does not know.
struct CommandReference: Sendable {
    /// One option: its names, its value's placeholder and its help in one paragraph.
    struct Entry: Sendable, Equatable {
        var names: [String]
        var placeholder: String?
        /// The help's lines joined, the default (as `--help` shows it) at the end.
        var help: String

        var value: ValueKind { ValueKind(placeholder: placeholder) }
    }

    /// Options shown together under a heading.
    struct Section: Sendable {
        var title: String
        var entries: [Entry]
    }

    /// As typed: `feedmerge`, `feedmerge parse`.
    var name: String
    var brief: String
    var synopsis: String
    var summary: String
    var sections: [Section]
    var operandName: String
    /// The words its first operand may be (`copy` for `feedmerge state`); empty when any.
    var subcommands: [String]
    var notes: String
    var listsExitStatus: Bool
    var examples: [(purpose: String, command: String)]

    /// The word after `feedmerge` that selects the command; nil for the main one.
    var word: String? { name.split(separator: " ").dropFirst().first.map(String.init) }

    var entries: [Entry] { sections.flatMap(\.entries) }

    /// How the operands complete (SOURCEs and FILEs are files; URLs are not), past
    /// the first when that is one of `subcommands`.
    var operandValue: ValueKind {
        switch operandName {
        case "URL": .text
        case "COMMAND": .none
        default: .files
        }
    }
}

extension CommandReference {
    /// Every command, the main one first.
    static var all: [CommandReference] {
        [
            CommandReference(MergeOptions.interface, defaults: MergeOptions(), more: mainOnly),
            CommandReference(PlanetCommand.interface, defaults: PlanetCommand()),
            CommandReference(WorkerCommand.interface, defaults: WorkerCommand()),
            CommandReference(RenderCommand.interface, defaults: MergeOptions()),
            CommandReference(ParseCommand.interface, defaults: ParseCommand()),
            CommandReference(FetchCommand.interface, defaults: FetchCommand()),
            CommandReference(StateCommand.interface, defaults: StateCommand()),
            CommandReference(KeyCommand.interface, defaults: KeyCommand()),
            CommandReference(HelpCommand.interface, defaults: HelpCommand()),
        ]
    }

    /// What the main command line takes besides the merge's options (`FeedmergeCommandLine.run`).
    static let mainOnly = [
        Entry(names: ["--version"], help: "print the version and the allocator, and exit"),
        Entry(
            names: ["--generate-man"],
            help: "print this manual page (roff), and exit; --doc-dir DIR names the folder the documents it"
                + " refers to are installed in (default: /usr/local/share/doc/feedmerge)"),
        Entry(
            names: ["--generate-completion"], placeholder: "bash|zsh|fish",
            help: "print the completion script for the shell, and exit"),
    ]

    /// Every command takes `-h`/`--help` (`CommandInterface.parse`).
    static let help = Entry(names: ["-h", "--help"], help: "print the help, and exit")

    init<Settings>(_ interface: CommandInterface<Settings>, defaults: Settings, more: [Entry] = []) {
        name = interface.name
        brief = interface.brief
        synopsis = interface.synopsis
        summary = interface.summary
        operandName = interface.operandName
        subcommands = interface.subcommands
        notes = interface.notes
        listsExitStatus = interface.listsExitStatus
        examples = interface.examples
        sections = interface.groups.map { group in
            Section(
                title: group.title,
                entries: group.options.map { option in
                    var help = option.help.split(separator: "\n").joined(separator: " ")
                    if let shown = option.shownDefault?(defaults) { help += " (default: \(shown))" }
                    return Entry(names: option.names, placeholder: option.placeholder, help: help)
                })
        }
        sections.append(Section(title: "Other", entries: [Self.help] + more))
    }
}
