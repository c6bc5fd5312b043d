internal import CLibPQ
import FeedState
import Foundation

/// A value for a statement's parameter, sent in PostgreSQL's binary form
/// (no number is printed and parsed again, no `bytea` escaped).
enum Parameter {
    case text(String?)
    case integer(Int64?)
    case bytes([UInt8]?)
    case flag(Bool)
    /// A one-dimensional `text[]` (no NULL element).
    case texts([String])
    /// A one-dimensional `int8[]` (nil: a NULL element).
    case integers([Int64?])

    /// The parameter's type (`pg_type`'s OIDs): text, int8, bytea, bool, text[].
    var type: Oid {
        switch self {
        case .text: 25
        case .integer: 20
        case .bytes: 17
        case .flag: 16
        case .texts: 1009
        case .integers: 1016
        }
    }

    /// The binary form; nil is SQL's NULL.
    var encoded: [UInt8]? {
        switch self {
        case .text(let text): text.map { Array($0.utf8) }
        case .integer(let value): value.map { withUnsafeBytes(of: $0.bigEndian, Array.init) }
        case .bytes(let bytes): bytes
        case .flag(let value): [value ? 1 : 0]
        case .texts(let texts):
            // array_recv's form: dimensions, has-nulls, element type, then each dimension's
            // size and lower bound, then each element's length and bytes.
            Self.int32(1) + Self.int32(0) + Self.int32(25) + Self.int32(texts.count) + Self.int32(1)
                + texts.flatMap { Self.int32($0.utf8.count) + Array($0.utf8) }
        case .integers(let values):
            Self.int32(1) + Self.int32(values.contains(nil) ? 1 : 0) + Self.int32(20) + Self.int32(values.count)
                + Self.int32(1)
                + values.flatMap { value in
                    value.map { Self.int32(8) + withUnsafeBytes(of: $0.bigEndian, Array.init) } ?? Self.int32(-1)
                }
        }
    }

    private static func int32(_ value: Int) -> [UInt8] {
        withUnsafeBytes(of: Int32(truncatingIfNeeded: value).bigEndian, Array.init)
    }
}

/// A statement the connection prepares once, the first time it is run,
/// and runs by name afterwards.
struct Statement: Hashable {
    let name: String
    let sql: String
    let types: [Oid]
}

/// One row of a result in binary form.
struct Row {
    fileprivate let result: OpaquePointer
    fileprivate let row: Int32
    /// The database, as the connection names it: what a row that cannot be read names.
    fileprivate let database: String

    /// How many columns the row has.
    var columns: Int32 { PQnfields(result) }

    func isNull(_ column: Int32) -> Bool { PQgetisnull(result, row, column) == 1 }

    func bytes(_ column: Int32) -> [UInt8]? {
        guard !isNull(column), let value = PQgetvalue(result, row, column) else { return nil }
        let count = Int(PQgetlength(result, row, column))
        return value.withMemoryRebound(to: UInt8.self, capacity: count) {
            Array(UnsafeBufferPointer(start: $0, count: count))
        }
    }

    func text(_ column: Int32) -> String? { bytes(column).map { String(decoding: $0, as: UTF8.self) } }

    /// An int2, int4 or int8 column.
    func integer(_ column: Int32) -> Int64? {
        guard !isNull(column), let value = PQgetvalue(result, row, column) else { return nil }
        let count = Int(PQgetlength(result, row, column))
        guard count == 2 || count == 4 || count == 8 else { return nil }
        // Read in place: a record has a dozen of these, and `bytes` would copy each.
        let bytes = UnsafeRawPointer(value)
        var number: Int64 = bytes.load(as: UInt8.self) & 0x80 != 0 ? -1 : 0
        for offset in 0..<count { number = number << 8 | Int64(bytes.load(fromByteOffset: offset, as: UInt8.self)) }
        return number
    }

    /// A NOT NULL column's text: NULL there is a damaged database (or a
    /// statement that does not select what its reader thinks), never a default.
    /// - Parameter name: the column, `table.column`, as the error names it.
    /// - Throws: `.damaged` when the column is NULL.
    func text(_ column: Int32, notNull name: String) throws(StateError) -> String {
        guard let text = text(column) else { throw missing(name) }
        return text
    }

    /// A NOT NULL int2, int4 or int8 column (see `text(_:notNull:)`); a value of another width throws too.
    func integer(_ column: Int32, notNull name: String) throws(StateError) -> Int64 {
        guard let value = integer(column) else { throw missing(name) }
        return value
    }

    /// A NOT NULL boolean column (see `text(_:notNull:)`).
    func flag(_ column: Int32, notNull name: String) throws(StateError) -> Bool {
        guard !isNull(column), let value = PQgetvalue(result, row, column), PQgetlength(result, row, column) == 1
        else { throw missing(name) }
        return value.pointee != 0
    }

    private func missing(_ name: String) -> StateError {
        StateError(path: database, message: "\(name) is NULL in a row that must have it", kind: .damaged)
    }
}

/// One libpq connection: the only owner of its `PGconn*`, used by one
/// thread at a time (its store's session thread: `StateSession`). Every failure is a
/// `StateError` with libpq's own words.
final class PostgreSQLConnection {
    private let handle: OpaquePointer
    /// The database as messages name it: `postgresql://user@host/db`, never a password.
    let name: String
    /// The connection string, whose password every message has removed (`ConnectionString`).
    private let conninfo: String
    private var prepared: Set<String> = []

    /// Connects with a libpq connection string: a URI (`postgresql://…`) or
    /// `key=value` words; what it leaves out comes from libpq's `PG*`
    /// variables and `~/.pgpass`, as libpq documents. A connection attempt
    /// gives up after `connectTimeout` seconds (libpq would wait as long as
    /// the network does) unless the string or `PGCONNECT_TIMEOUT` says
    /// otherwise.
    init(_ conninfo: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(StateError) {
        // The string is expanded in place of `dbname` (libpq's expand_dbname): what it says
        // overrides the keywords before it.
        var keywords = ["dbname"]
        var values = [conninfo]
        if environment["PGCONNECT_TIMEOUT"] == nil {
            keywords.insert("connect_timeout", at: 0)
            values.insert(String(Self.connectTimeout), at: 0)
        }
        let connected = keywords.withCStrings { keywordPointers in
            values.withCStrings { valuePointers in PQconnectdbParams(keywordPointers, valuePointers, 1) }
        }
        guard let handle = connected else {
            throw StateError(path: "postgresql", message: "cannot connect: libpq is out of memory")
        }
        self.conninfo = conninfo
        // libpq quotes a string it cannot parse (its host, a token): no password may come with it.
        name = ConnectionString.redact(Self.name(of: handle), secretsOf: conninfo)
        guard PQstatus(handle) == CONNECTION_OK else {
            let reason = ConnectionString.redact(Self.message(of: handle), secretsOf: conninfo)
            PQfinish(handle)
            throw StateError(path: name, message: "cannot connect: " + reason)
        }
        self.handle = handle
        // Messages in English whatever the server's locale, and no notices on standard error.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit { PQfinish(handle) }

    /// Seconds a connection attempt may take when nothing else says.
    static let connectTimeout = 10

    private static func name(of handle: OpaquePointer) -> String {
        func field(_ value: UnsafeMutablePointer<CChar>?) -> String { value.map { String(cString: $0) } ?? "" }
        var host = field(PQhost(handle))
        if host.hasPrefix("/") { host = "[\(host)]" }
        let port = field(PQport(handle))
        return "postgresql://\(field(PQuser(handle)))@\(host)\(port.isEmpty ? "" : ":" + port)/\(field(PQdb(handle)))"
    }

    /// libpq's last message, on one line.
    private static func message(of handle: OpaquePointer) -> String {
        let text = PQerrorMessage(handle).map { String(cString: $0) } ?? ""
        return Self.oneLine(text)
    }

    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
    }

    func error(_ message: String, kind: StateError.Kind = .unusable) -> StateError {
        StateError(path: name, message: ConnectionString.redact(message, secretsOf: conninfo), kind: kind)
    }

    /// The failure a result reports, or nil when it succeeded.
    private func failure(of result: OpaquePointer?) -> StateError? {
        guard let result else { return error(Self.message(of: handle)) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_PIPELINE_SYNC:
            return nil
        default:
            // The server's primary message: its DETAIL would quote the row (a feed's document).
            let primary = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) } ?? ""
            let text = primary.isEmpty ? PQresultErrorMessage(result).map { String(cString: $0) } ?? "" : primary
            let reason = Self.oneLine(text.isEmpty ? Self.message(of: handle) : text)
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
            // 42501: insufficient privilege; 3D000/3F000: no such database or schema.
            let kind: StateError.Kind = ["42501", "3D000", "3F000"].contains(state) ? .cannotCreate : .unusable
            // 08: a connection exception; 57P: the server ended the session (shut down, restarted,
            // `pg_terminate_backend`), which libpq learns of only at its next read.
            if state.hasPrefix("08") || state.hasPrefix("57P") { ended = true }
            return error(reason, kind: kind)
        }
    }

    /// Whether the connection still works (a server restarted, a network gone: it does not).
    var isOpen: Bool { !ended && PQstatus(handle) == CONNECTION_OK }
    /// The server said it ended the session.
    private var ended = false

    /// Connects again after the connection was lost (what it had prepared is gone with it).
    /// - Returns: whether it works again.
    func reopen() -> Bool {
        PQreset(handle)
        prepared = []
        ended = false
        return isOpen
    }

    /// What libpq last said (why a connection failed), on one line.
    var lastMessage: String { ConnectionString.redact(Self.message(of: handle), secretsOf: conninfo) }

    /// Runs `body` in one transaction whose commit returns only once it is
    /// on the server's disk (`synchronous_commit` on for it alone, whatever
    /// the session's); a failure rolls it back.
    /// - Returns: what `body` gave.
    func durably<Value>(_ body: () throws(StateError) -> Value) throws(StateError) -> Value {
        try execute("BEGIN; SET LOCAL synchronous_commit TO on")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            if isOpen && PQtransactionStatus(handle) != PQTRANS_IDLE { try execute("ROLLBACK") }
            throw error
        }
    }

    /// Runs SQL text (one statement or several), no parameters, no rows.
    func execute(_ sql: String) throws(StateError) {
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        if let failure = failure(of: result) { throw failure }
    }

    /// Runs a statement with parameters; `row` is called for each row of its result.
    /// - Returns: the rows it inserted, updated or deleted (`PQcmdTuples`).
    @discardableResult
    func query(_ statement: Statement, _ parameters: [Parameter] = [], row: (Row) throws(StateError) -> Void = { _ in })
        throws(StateError) -> Int
    {
        try prepare(statement)
        let result = withParameters(parameters) { values, lengths, formats in
            PQexecPrepared(handle, statement.name, Int32(parameters.count), values, lengths, formats, 1)
        }
        defer { PQclear(result) }
        if let failure = failure(of: result) { throw failure }
        guard let result else { return 0 }
        for index in 0..<PQntuples(result) { try row(Row(result: result, row: index, database: name)) }
        return Self.affected(result)
    }

    private static func affected(_ result: OpaquePointer) -> Int {
        PQcmdTuples(result).map { Int(String(cString: $0)) ?? 0 } ?? 0
    }

    /// Runs SQL text with parameters (for the statements run once: a migration's, the lock's).
    func query(_ sql: String, _ parameters: [Parameter] = [], row: (Row) throws(StateError) -> Void = { _ in })
        throws(StateError)
    {
        let types = parameters.map(\.type)
        let result = withParameters(parameters) { values, lengths, formats in
            PQexecParams(handle, sql, Int32(parameters.count), types, values, lengths, formats, 1)
        }
        defer { PQclear(result) }
        if let failure = failure(of: result) { throw failure }
        guard let result else { return }
        for index in 0..<PQntuples(result) { try row(Row(result: result, row: index, database: name)) }
    }

    private func prepare(_ statement: Statement) throws(StateError) {
        guard !prepared.contains(statement.name) else { return }
        let result = PQprepare(handle, statement.name, statement.sql, Int32(statement.types.count), statement.types)
        defer { PQclear(result) }
        if let failure = failure(of: result) { throw failure }
        prepared.insert(statement.name)
    }

    /// Which part of a transaction a pipeline sends.
    enum Span {
        /// A whole transaction: `BEGIN`, the statements, `COMMIT`.
        case whole
        /// Its start: `BEGIN` and the statements; the transaction stays open when they all succeed.
        case opening
        /// Its end, in the transaction an `opening` pipeline left open: the statements and `COMMIT`.
        case closing
    }

    /// Sends the statements one after the other without waiting for each
    /// answer (libpq's pipeline mode: one round trip for them all), in one
    /// transaction (or a part of one: `span`). Nothing is kept unless all of
    /// them succeed. `durable`: the commit returns once it (and every commit
    /// before it) is on the server's disk, whatever the session's
    /// `synchronous_commit` (said by the pipeline that begins the transaction).
    /// - Parameters:
    ///   - affected: called with each statement's index and the rows it wrote.
    ///   - row: called with each statement's index and each row it gave.
    /// - Returns: nil when all were stored; else the first failure (the
    ///   transaction is rolled back).
    func pipeline(
        _ statements: [(Statement, [Parameter])], durable: Bool = false, span: Span = .whole,
        affected: (Int, Int) -> Void = { _, _ in }, row: (Int, Row) throws(StateError) -> Void = { _, _ in }
    ) throws(StateError) -> StateError? {
        for (statement, _) in statements { try prepare(statement) }
        guard PQenterPipelineMode(handle) == 1 else { throw error(Self.message(of: handle)) }
        defer { PQexitPipelineMode(handle) }
        var sent = 0
        var failure: StateError?
        func send(_ body: () -> Int32) {
            if failure == nil && body() != 1 { failure = error(Self.message(of: handle)) }
            if failure == nil { sent += 1 }
        }
        if span != .closing {
            send { PQsendQueryParams(handle, "BEGIN", 0, nil, nil, nil, nil, 1) }
            if durable {
                send { PQsendQueryParams(handle, "SET LOCAL synchronous_commit TO on", 0, nil, nil, nil, nil, 1) }
            }
        }
        let first = span == .closing ? 0 : durable ? 2 : 1
        for (statement, parameters) in statements {
            send {
                withParameters(parameters) { values, lengths, formats in
                    PQsendQueryPrepared(handle, statement.name, Int32(parameters.count), values, lengths, formats, 1)
                }
            }
        }
        if span != .opening { send { PQsendQueryParams(handle, "COMMIT", 0, nil, nil, nil, nil, 1) } }
        guard PQpipelineSync(handle) == 1 else { throw error(Self.message(of: handle)) }
        // Each statement's result, then a NULL; PGRES_PIPELINE_ABORTED for those after a failure.
        var answered = 0
        while answered < sent {
            guard let result = PQgetResult(handle) else {
                answered += 1
                continue
            }
            let status = PQresultStatus(result)
            let statement = answered - first
            if status == PGRES_COMMAND_OK, statements.indices.contains(statement) {
                affected(statement, Self.affected(result))
            }
            if status == PGRES_TUPLES_OK, statements.indices.contains(statement), failure == nil {
                do {
                    for index in 0..<PQntuples(result) {
                        try row(statement, Row(result: result, row: index, database: name))
                    }
                } catch {
                    failure = error
                }
            }
            if status == PGRES_PIPELINE_ABORTED {
                if failure == nil { failure = error("the batch was aborted") }
            } else if let reported = self.failure(of: result),
                failure == nil || failure?.message == "the batch was aborted"
            {
                failure = reported
            }
            PQclear(result)
        }
        // The sync's own result.
        while let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
        guard isOpen else { throw failure ?? error(Self.message(of: handle)) }
        if PQtransactionStatus(handle) != PQTRANS_IDLE && (span != .opening || failure != nil) {
            PQexitPipelineMode(handle)
            try execute("ROLLBACK")
        }
        return failure
    }

    /// Calls `body` with the parameters as libpq's arrays (values, lengths, formats: all binary).
    private func withParameters<Result>(
        _ parameters: [Parameter],
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> Result
    ) -> Result {
        let encoded = parameters.map(\.encoded)
        let lengths = encoded.map { Int32($0?.count ?? 0) }
        let formats = [Int32](repeating: 1, count: parameters.count)
        // Each value's bytes, kept alive (and at a fixed address) for the call.
        let buffers: [UnsafeMutablePointer<CChar>?] = encoded.map { bytes in
            guard let bytes else { return nil }
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(bytes.count, 1))
            bytes.withUnsafeBytes { raw in
                if let base = raw.baseAddress {
                    buffer.initialize(from: base.assumingMemoryBound(to: CChar.self), count: bytes.count)
                }
            }
            return buffer
        }
        defer { for buffer in buffers { buffer?.deallocate() } }
        let values = buffers.map { UnsafePointer($0) }
        return body(values, lengths, formats)
    }
}

extension Array where Element == String {
    /// Calls `body` with the strings as a NULL-terminated array of C strings (libpq's keyword lists).
    fileprivate func withCStrings<Result>(_ body: (UnsafePointer<UnsafePointer<CChar>?>) -> Result) -> Result {
        let copies = map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
