/// The bash completion: one function, `_feedmerge`, that finds the command
/// (the first word when it names one), then completes an option's value
/// from its placeholder, an option name after `-`, or an operand (the
/// command's subcommand when it is the word after the command's name).
struct BashCompletion {
    var commands: [CommandReference]

    func render(header: String) -> String {
        let words = commands.compactMap(\.word)
        var lines = [
            "# bash completion for feedmerge. \(header)",
            "_feedmerge() {",
            "    COMPREPLY=()",
            "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}",
            "    # COMP_WORDBREAKS splits --name=value into --name, = and value.",
            "    if [[ $cur == = ]]; then",
            "        cur=",
            "    elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then",
            "        prev=${COMP_WORDS[COMP_CWORD-2]}",
            "    fi",
            "    local command=merge",
            "    if ((COMP_CWORD > 1)); then",
            "        case ${COMP_WORDS[1]} in \(words.joined(separator: "|"))) command=${COMP_WORDS[1]} ;; esac",
            "    fi",
            "    case $command:$prev in",
        ]
        for command in commands {
            let key = command.word ?? "merge"
            for entry in command.entries where entry.value != .none {
                let patterns = entry.names.map { "\(key):\($0)" }.joined(separator: " | ")
                lines.append("        \(patterns)) \(reply(entry.value)); return ;;")
            }
        }
        lines += ["    esac", "    if [[ $cur == -* ]]; then", "        case $command in"]
        for command in commands {
            let names = command.entries.flatMap(\.names).sorted().joined(separator: " ")
            lines.append("            \(command.word ?? "merge")) _feedmerge_words \(names.singleQuoted) ;;")
        }
        lines += ["        esac", "        return", "    fi", "    case $command in"]
        for command in commands {
            var reply = reply(command.operandValue)
            if command.word == nil {
                reply = "((COMP_CWORD == 1)) && _feedmerge_words '\(words.joined(separator: " "))'; " + reply
            } else if !command.subcommands.isEmpty {
                let subcommands = command.subcommands.joined(separator: " ").singleQuoted
                reply = "if ((COMP_CWORD == 2)); then _feedmerge_words \(subcommands); else \(reply); fi"
            }
            lines.append("        \(command.word ?? "merge")) \(reply) ;;")
        }
        lines += [
            "    esac",
            "}",
            "",
            "# Adds the words that start with $cur.",
            "_feedmerge_words() {",
            "    COMPREPLY+=($(compgen -W \"$1\" -- \"$cur\"))",
            "}",
            "",
            "# Adds the paths that start with $cur.",
            "_feedmerge_files() {",
            "    compopt -o filenames 2>/dev/null",
            "    local IFS=$'\\n'",
            "    COMPREPLY+=($(compgen -f -- \"$cur\"))",
            "}",
            "",
            "# Adds the folders that start with $cur.",
            "_feedmerge_directories() {",
            "    compopt -o filenames 2>/dev/null",
            "    local IFS=$'\\n'",
            "    COMPREPLY+=($(compgen -d -- \"$cur\"))",
            "}",
            "",
            "complete -F _feedmerge feedmerge",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    private func reply(_ value: ValueKind) -> String {
        switch value {
        case .none, .text: "COMPREPLY=()"
        case .files: "_feedmerge_files"
        case .directories: "_feedmerge_directories"
        case .words(let words): "_feedmerge_words \(words.joined(separator: " ").singleQuoted)"
        }
    }
}
