/// A store's failure: where (a file's path, a server's database) and why,
/// in the words of the library that failed (SQLite, libpq), and what kind
/// of failure it is, which decides what a run does about it.
public struct StateError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// A read or a write failed (a damaged value, a full disk, a lost
        /// connection): the run goes on without what it could not read or store.
        case unusable
        /// The state cannot be created where it was named (a folder, a file,
        /// a database's tables).
        case cannotCreate
        /// Another run holds the state: trying again later will help.
        case held
        /// A stored value does not read back (a feed's entries document whose
        /// checksum fails): what the run does about it is policy (`Aggregator`).
        case damaged
    }

    /// The state's file, or a server's database (`postgresql://user@host/db`, never a password).
    public var path: String
    public var message: String
    public var kind: Kind
    public var description: String { "\(path): \(message)" }

    public init(path: String, message: String, kind: Kind = .unusable) {
        self.path = path
        self.message = message
        self.kind = kind
    }
}
