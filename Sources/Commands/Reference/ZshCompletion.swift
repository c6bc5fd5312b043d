/// The zsh completion (`#compdef feedmerge`): `_arguments` with one spec per
/// option name, after shifting the words past a command's name.
struct ZshCompletion {
    var commands: [CommandReference]

    func render(header: String) -> String {
        let words = commands.compactMap(\.word)
        let described = commands.compactMap { command in command.word.map { "\($0):\(command.brief)".singleQuoted } }
        var lines = [
            "#compdef feedmerge",
            "# zsh completion for feedmerge. \(header)",
            "",
            "_feedmerge() {",
            "    local -a feedmerge_commands=(\(described.joined(separator: " ")))",
            "    if ((CURRENT > 2)) && [[ $words[2] == (\(words.joined(separator: "|"))) ]]; then",
            "        local command=$words[2]",
            "        shift words",
            "        ((CURRENT--))",
            "        case $command in",
        ]
        for command in commands where command.word != nil {
            lines.append("            \(command.word!))")
            lines += arguments(command, operand: action(command.operandValue), indent: "                ")
            lines.append("                ;;")
        }
        lines += ["        esac", "        return", "    fi"]
        lines += arguments(commands[0], operand: "_feedmerge_sources", indent: "    ")
        lines += [
            "}",
            "",
            "# A SOURCE, or in its place the name of a command.",
            "_feedmerge_sources() {",
            "    ((CURRENT == 2)) && _describe -t commands command feedmerge_commands",
            "    _files",
            "}",
            "",
            "_feedmerge \"$@\"",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    private func arguments(_ command: CommandReference, operand: String, indent: String) -> [String] {
        var specs: [String] = []
        for entry in command.entries {
            for name in entry.names {
                let explanation = "[\(escaped(entry.help))]"
                guard entry.placeholder != nil else {
                    specs.append("*\(name)\(explanation)")
                    continue
                }
                let form = name.hasPrefix("--") ? "=" : ""
                specs.append("*\(name)\(form)\(explanation):\(escaped(entry.placeholder!)):\(action(entry.value))")
            }
        }
        if !command.subcommands.isEmpty {
            specs.append("1:subcommand:(\(command.subcommands.joined(separator: " ")))")
        }
        specs.append("*:\(command.operandName):\(operand)")
        return ["\(indent)_arguments -S \\"] + specs.map { "\(indent)    \($0.singleQuoted)" }.joinedWithContinuations
    }

    private func action(_ value: ValueKind) -> String {
        switch value {
        case .none, .text: " "
        case .files: "_files"
        case .directories: "_files -/"
        case .words(let words): "(\(words.joined(separator: " ")))"
        }
    }

    /// `\`, `[`, `]` and `:` have meanings in a spec.
    private func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            if "\\[]:".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }
}

extension Array where Element == String {
    /// Each line but the last ends with ` \`.
    fileprivate var joinedWithContinuations: [String] {
        enumerated().map { $0.offset == count - 1 ? $0.element : $0.element + " \\" }
    }
}
