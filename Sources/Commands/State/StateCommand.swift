import FeedState
import Foundation
import PostgreSQLState

/// `feedmerge state copy FROM TO`: moves a state between a SQLite file and
/// a PostgreSQL database, in either direction, with its whole history
/// (every feed's record, validators, stored entries and first-seen dates),
/// so that a run on the copy gives the same bytes as a run on the original.
struct StateCommand {
    var operands: [String] = []

    static let interface = CommandInterface<StateCommand>(
        name: "feedmerge state",
        brief: "copy a state between SQLite and PostgreSQL",
        synopsis: "feedmerge state copy FROM TO",
        summary: """
            Copies the state FROM into TO, which must hold no feed yet (a new SQLite file,
            or an empty PostgreSQL database). Each is a --state value: a file's path, or a
            libpq connection string (postgresql://USER@HOST/DB, or key=value words).
            Both are locked for the copy: no run may use either meanwhile.
            """,
        groups: [],
        operandName: "STATE",
        operand: { command, operand in command.operands.append(operand) },
        subcommands: ["copy"],
        notes: """
            Exit status: 0 copied; 2 usage error; 73 TO cannot be created; 74 a state cannot
            be read or written, or TO holds feeds already; 75 another run holds one of them.
            """,
        examples: [
            (
                "move a planet's state to a PostgreSQL server",
                "feedmerge state copy ~/.local/state/feedmerge/state.sqlite postgresql://planet@db/planet"
            )
        ])

    static func parse(_ arguments: some Sequence<String>) throws(UsageError) -> Request<StateCommand> {
        let request = try interface.parse(arguments, into: StateCommand())
        guard case .run(let command) = request else { return request }
        guard let subcommand = command.operands.first, interface.subcommands.contains(subcommand) else {
            let known = interface.subcommands.joined(separator: ", ")
            throw UsageError(
                command.operands.isEmpty
                    ? "no subcommand given (\(known))" : "unknown subcommand \(command.operands[0]) (\(known))")
        }
        guard command.operands.count == 3 else { throw UsageError("state copy takes FROM and TO") }
        guard command.operands[1] != command.operands[2] else { throw UsageError("FROM and TO are the same state") }
        return request
    }

    func run() -> Int32 {
        let from = StateLocation(operands[1])
        let to = StateLocation(operands[2])
        var importing = false
        do throws(StateError) {
            let started = Date()
            let source = try from.open()
            let target = try to.open()
            let (reading, writing) = (source.store, target.store)
            guard try writing.feeds().isEmpty else {
                throw StateError(
                    path: ConnectionString.redacted(operands[2]), message: "holds feeds already; copy into a new state")
            }
            importing = true
            var feeds = 0
            var entries = 0
            var batch: [FeedSnapshot] = []
            try reading.exportFeeds { snapshot throws(StateError) in
                feeds += 1
                entries += snapshot.dates?.count ?? 0
                batch.append(snapshot)
                if batch.count >= 64 {
                    try writing.importFeeds(batch)
                    batch = []
                }
            }
            try writing.importFeeds(batch)
            try writing.setLastFullPrune(try reading.lastFullPrune())
            if let id = try reading.mergedFeedID() { _ = try writing.keepMergedFeedID(id) }
            if let failure = try writing.commit().first { throw failure.value }
            withExtendedLifetime((source, target)) {}
            let seconds = String(format: "%.1f", Date().timeIntervalSince(started))
            StandardOutput.error("feedmerge: state: copied \(feeds) feeds and \(entries) entries in \(seconds) s")
            return ExitStatus.success.rawValue
        } catch {
            let outcome = importing ? "the copy is incomplete: empty TO and copy again" : "nothing was copied"
            StandardOutput.error("feedmerge: state: \(error); \(outcome)")
            switch error.kind {
            case .held: return ExitStatus.stateLocked.rawValue
            case .cannotCreate: return ExitStatus.stateCannotBeCreated.rawValue
            case .unusable, .damaged: return ExitStatus.stateUnusable.rawValue
            }
        }
    }
}
