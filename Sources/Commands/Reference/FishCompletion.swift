/// The fish completion: one `complete` line per option, conditioned on the
/// command in use (the main one until a command's name has been seen), and
/// a command's subcommands until one has been seen.
struct FishCompletion {
    var commands: [CommandReference]

    func render(header: String) -> String {
        let words = commands.compactMap(\.word)
        var lines = ["# fish completion for feedmerge. \(header)"]
        for command in commands {
            guard let word = command.word else { continue }
            lines.append("complete -c feedmerge -n __fish_use_subcommand -a \(word) -d \(quoted(command.brief))")
        }
        for command in commands {
            let condition =
                command.word.map { "__fish_seen_subcommand_from \($0)" }
                ?? "not __fish_seen_subcommand_from \(words.joined(separator: " "))"
            for entry in command.entries {
                var line = "complete -c feedmerge -n \(quoted(condition))"
                for name in entry.names {
                    line += name.hasPrefix("--") ? " -l \(name.dropFirst(2))" : " -s \(name.dropFirst())"
                }
                switch entry.value {
                case .none: break
                case .files: line += " -r -F"
                case .directories: line += " -x -a '(__fish_complete_directories)'"
                case .text: line += " -x"
                case .words(let values): line += " -x -a \(quoted(values.joined(separator: " ")))"
                }
                lines.append(line + " -d \(quoted(entry.help))")
            }
            if !command.subcommands.isEmpty {
                let subcommands = command.subcommands.joined(separator: " ")
                let before = "\(condition); and not __fish_seen_subcommand_from \(subcommands)"
                lines.append("complete -c feedmerge -n \(quoted(before)) -f -a \(quoted(subcommands))")
            }
            if command.operandValue != .files {
                lines.append("complete -c feedmerge -n \(quoted(condition)) -f")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// fish's single quotes: only `\` and `'` are escaped.
    private func quoted(_ text: String) -> String {
        var out = "'"
        for character in text {
            if character == "\\" || character == "'" { out.append("\\") }
            out.append(character)
        }
        return out + "'"
    }
}
