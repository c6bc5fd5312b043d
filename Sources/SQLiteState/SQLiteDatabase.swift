internal import CSQLite
import FeedState

/// One SQLite connection: the only owner of its `sqlite3*`. Used from one
/// task at a time (the parent of the pipeline), never shared.
final class SQLiteDatabase {
    private let handle: OpaquePointer
    let path: String

    /// Opens (creating) a database in WAL mode with a busy timeout.
    /// The corresponding C function is `sqlite3_open_v2`.
    init(path: String) throws(StateError) {
        var pointer: OpaquePointer?
        let status = sqlite3_open_v2(
            path, &pointer, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let pointer else {
            let message = pointer.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let pointer { sqlite3_close_v2(pointer) }
            throw StateError(path: path, message: message)
        }
        handle = pointer
        self.path = path
        sqlite3_busy_timeout(handle, 5000)
        // For a new file (an existing one keeps its own): entries of about half a kilobyte each,
        // compressed, fit whole on 8 KB pages, where on 4 KB ones a larger entry would take an
        // overflow page of its own.
        try execute("PRAGMA page_size=8192")
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=NORMAL")
        // Savepoint and statement journals in memory: each outcome's savepoint
        // (`SQLiteStateStore.record`) would otherwise write the pages it changes
        // to a temporary file first, a syscall per page.
        try execute("PRAGMA temp_store=MEMORY")
        try execute("PRAGMA foreign_keys=ON")
    }

    deinit {
        statements.removeAll()  // finalize every statement before closing
        sqlite3_close_v2(handle)
    }

    /// Runs SQL that returns no rows. The corresponding C function is `sqlite3_exec`.
    func execute(_ sql: String) throws(StateError) {
        var error: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &error) == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? lastMessage
            sqlite3_free(error)
            throw StateError(path: path, message: "\(message) (in: \(sql.prefix(60)))")
        }
    }

    /// Statements by their SQL: prepared once, reused for every feed.
    private var statements: [String: Statement] = [:]

    func prepare(_ sql: String) throws(StateError) -> Statement {
        if let cached = statements[sql] { return cached }
        let statement = try compile(sql)
        statements[sql] = statement
        return statement
    }

    private func compile(_ sql: String) throws(StateError) -> Statement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw StateError(path: path, message: "\(lastMessage) (in: \(sql.prefix(60)))")
        }
        return Statement(handle: statement, database: self)
    }

    /// Runs `body` in one transaction: all of it is stored, or none of it.
    func transaction<T>(_ body: () throws(StateError) -> T) throws(StateError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            // SQLite may have rolled back already (some errors end the transaction): then there is nothing to undo.
            // The corresponding C function is `sqlite3_get_autocommit`.
            guard sqlite3_get_autocommit(handle) == 0 else { throw error }
            do {
                try execute("ROLLBACK")
            } catch let rollback {
                throw StateError(
                    path: path, message: "\(error.message); and it could not be undone: \(rollback.message)")
            }
            throw error
        }
    }

    var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }

    /// A transaction is open (SQLite ends some on an error by itself).
    var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }
}

/// A prepared statement; finalized when released.
final class Statement {
    private let handle: OpaquePointer
    /// Unowned: the database owns its cached statements and finalizes them first.
    private unowned let database: SQLiteDatabase

    init(handle: OpaquePointer, database: SQLiteDatabase) {
        self.handle = handle
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    enum Value {
        case text(String?)
        case integer(Int64?)
        case blob([UInt8])
    }

    /// Binds the values (1-based, in order) after resetting the statement.
    func bind(_ values: [Value]) throws(StateError) {
        // `sqlite3_reset` repeats the previous step's error, which was reported then.
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .text(let text?):
                var text = text
                status = text.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) {
                        CSQLite_bind_text(handle, index, $0.baseAddress, Int32($0.count))
                    }
                }
            case .integer(let number?): status = sqlite3_bind_int64(handle, index, number)
            case .blob(let bytes):
                status = bytes.withUnsafeBytes { CSQLite_bind_blob(handle, index, $0.baseAddress, Int32($0.count)) }
            case .text(nil), .integer(nil): status = sqlite3_bind_null(handle, index)
            }
            guard status == SQLITE_OK else {
                throw StateError(path: database.path, message: "cannot bind value \(index): \(database.lastMessage)")
            }
        }
    }

    /// Runs the statement to completion (no rows wanted).
    func run(_ values: [Value] = []) throws(StateError) {
        try bind(values)
        let status = sqlite3_step(handle)
        guard status == SQLITE_DONE || status == SQLITE_ROW else {
            throw StateError(path: database.path, message: database.lastMessage)
        }
    }

    /// Calls `row` for every result row; a row it cannot read ends the query with its error.
    func query(_ values: [Value] = [], row: (Statement) throws(StateError) -> Void) throws(StateError) {
        try bind(values)
        while true {
            let status = sqlite3_step(handle)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else { throw StateError(path: database.path, message: database.lastMessage) }
            try row(self)
        }
    }

    func text(_ column: Int32) -> String? {
        guard sqlite3_column_type(handle, column) != SQLITE_NULL, let text = sqlite3_column_text(handle, column) else {
            return nil
        }
        return String(cString: text)
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func integer(_ column: Int32) -> Int64? {
        sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, column)
    }

    /// A NOT NULL column's integer: NULL there is a damaged file (or a statement
    /// that does not select what its reader thinks), never a default.
    /// - Parameter name: the column, `table.column`, as the error names it.
    /// - Throws: `.damaged` when the column is NULL.
    func integer(_ column: Int32, notNull name: String) throws(StateError) -> Int64 {
        guard sqlite3_column_type(handle, column) != SQLITE_NULL else { throw missing(name) }
        return sqlite3_column_int64(handle, column)
    }

    /// A NOT NULL column's text (see `integer(_:notNull:)`).
    func text(_ column: Int32, notNull name: String) throws(StateError) -> String {
        guard let text = text(column) else { throw missing(name) }
        return text
    }

    private func missing(_ name: String) -> StateError {
        StateError(path: database.path, message: "\(name) is NULL in a row that must have it", kind: .damaged)
    }

    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }
}

@available(*, unavailable)
extension SQLiteDatabase: Sendable {}
