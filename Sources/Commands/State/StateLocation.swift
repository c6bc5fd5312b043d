import FeedState
import PostgreSQLState
import SQLiteState

/// Where `--state` says the state lives: a SQLite file (a path), or a
/// PostgreSQL database (a libpq connection string: a `postgresql://` or
/// `postgres://` URI, or `key=value` words such as `dbname=planet host=db`).
enum StateLocation: Equatable {
    case sqlite(path: String)
    case postgreSQL(conninfo: String)

    /// The keywords libpq's `key=value` connection strings begin with (its documentation's list).
    static let connectionKeywords: Set<String> = [
        "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "channel_binding", "connect_timeout",
        "client_encoding", "options", "application_name", "fallback_application_name", "keepalives",
        "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout", "replication",
        "gssencmode", "sslmode", "requiressl", "sslcompression", "sslcert", "sslkey", "sslpassword",
        "sslrootcert", "sslcrl", "sslcrldir", "sslsni", "requirepeer", "ssl_min_protocol_version",
        "ssl_max_protocol_version", "krbsrvname", "gsslib", "service", "target_session_attrs",
    ]

    init(_ value: String) {
        if value.hasPrefix("postgresql://") || value.hasPrefix("postgres://") {
            self = .postgreSQL(conninfo: value)
            return
        }
        let first = value.drop(while: \.isWhitespace).prefix { $0 != "=" && !$0.isWhitespace }
        if value.drop(while: \.isWhitespace).dropFirst(first.count).first == "=",
            Self.connectionKeywords.contains(String(first))
        {
            self = .postgreSQL(conninfo: value)
        } else {
            self = .sqlite(path: value)
        }
    }

    /// An open store, with what keeps other runs out while it is open (the
    /// SQLite file's lock; a PostgreSQL store holds its own).
    struct Opened {
        let store: any CopyableStateStore
        let lock: StateLock?
    }

    /// An open store given over to a session, with the lock (see `Opened`).
    struct Session {
        let session: StateSession
        let lock: StateLock?
    }

    /// Opens the state as `open` does, on the thread of the session its store is given to
    /// (opening waits on a disk or a server there, never on Swift's cooperative pool).
    /// - Parameter access: `.readOnly`: every write is left undone (`feedmerge render`).
    func openSession(
        whenLost: PostgreSQLStateStore.LostConnection = .givenUpAfterPatience,
        access: StateSession.Access = .readWrite
    ) async throws(StateError) -> Session {
        let lock = try takeLock()
        let session = try await StateSession.open(access: access) { [self] () throws(StateError) in
            try makeStore(whenLost: whenLost)
        }
        return Session(session: session, lock: lock)
    }

    /// Opens the state, taking its lock first.
    /// - Parameter whenLost: what a PostgreSQL state does when it finds its connection lost.
    /// - Throws: `StateError`, whose kind says held, cannot create, or unusable.
    func open(whenLost: PostgreSQLStateStore.LostConnection = .givenUpAfterPatience) throws(StateError) -> Opened {
        let lock = try takeLock()
        return Opened(store: try makeCopyableStore(whenLost: whenLost), lock: lock)
    }

    /// The state file's lock (a PostgreSQL state holds its own: nil).
    private func takeLock() throws(StateError) -> StateLock? {
        guard case .sqlite(let path) = self else { return nil }
        do {
            return try StateLock(statePath: path)
        } catch {
            switch error {
            case .held(let lockPath):
                throw StateError(path: lockPath, message: "another run holds it; nothing was done", kind: .held)
            case .cannotCreate(let failedPath, let reason):
                throw StateError(path: failedPath, message: reason, kind: .cannotCreate)
            }
        }
    }

    private func makeStore(whenLost: PostgreSQLStateStore.LostConnection) throws(StateError) -> any StateStore {
        switch self {
        case .sqlite(let path): try SQLiteStateStore(path: path)
        case .postgreSQL(let conninfo): try PostgreSQLStateStore(connecting: conninfo, whenLost: whenLost)
        }
    }

    /// Every store `--state` can name is copyable (`feedmerge state copy`).
    private func makeCopyableStore(whenLost: PostgreSQLStateStore.LostConnection) throws(StateError)
        -> any CopyableStateStore
    {
        switch self {
        case .sqlite(let path): try SQLiteStateStore(path: path)
        case .postgreSQL(let conninfo): try PostgreSQLStateStore(connecting: conninfo, whenLost: whenLost)
        }
    }
}
