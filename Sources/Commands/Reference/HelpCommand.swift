/// `feedmerge help [COMMAND]`: the help `feedmerge [COMMAND] --help` prints,
/// for a command named as an operand.
struct HelpCommand {
    var operands: [String] = []

    /// The words of the commands it explains (`help` itself is not one of them).
    static let commandWords = ["planet", "worker", "render", "parse", "fetch", "state", "key"]

    static let interface = CommandInterface<HelpCommand>(
        name: "feedmerge help",
        brief: "print a command's help",
        synopsis: "feedmerge help [COMMAND]",
        summary: """
            Prints the help of COMMAND, as feedmerge COMMAND --help does; with no COMMAND,
            the overview and the main command's help, as feedmerge --help does.
            """,
        groups: [],
        operandName: "COMMAND",
        operand: { command, operand in command.operands.append(operand) },
        subcommands: commandWords,
        examples: [("read the planet command's options", "feedmerge help planet")])

    static func parse(_ arguments: some Sequence<String>) throws(UsageError) -> Request<HelpCommand> {
        let request = try interface.parse(arguments, into: HelpCommand())
        guard case .run(let command) = request else { return request }
        let known = interface.subcommands.joined(separator: ", ")
        guard command.operands.count <= 1 else { throw UsageError("help takes one command (\(known))") }
        if let word = command.operands.first, !interface.subcommands.contains(word) {
            throw UsageError("unknown command \(word) (\(known))")
        }
        return request
    }
}
