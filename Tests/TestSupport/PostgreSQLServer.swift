import Foundation

/// A throwaway PostgreSQL server for the tests of one process
/// (`scripts/lib/postgres_server.py`: initdb and pg_ctl in a temporary
/// folder, a Unix socket there, fsync off), started the first time a test
/// asks for a database. It stops when its standard input closes, that is
/// when the test process ends, even killed: no server outlives the tests.
/// Each test gets a database of its own (`database()`).
public final class PostgreSQLServer: @unchecked Sendable {
    // Unchecked: `process`' pipes are used under `lock` only.
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let lock = NSLock()
    private var created = 0
    /// The folder of the server's socket (and its data).
    public let socketFolder: String

    /// The script's path, in the repository beside the tests.
    public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../scripts/lib/postgres_server.py").standardizedFileURL

    private init() throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script.path]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        socketFolder = Self.line(from: output)
        guard socketFolder.hasPrefix("/") else {
            throw POSIXError(
                .EIO, userInfo: [NSLocalizedDescriptionKey: "the server did not start (see its message above)"])
        }
    }

    /// The script's next line, or what it said so far once `seconds` have passed without the line
    /// ending (its initdb, pg_ctl start and stop take seconds; pg_ctl gives up after 60): a server
    /// that never answers fails the caller instead of holding its thread for good.
    private static func line(from pipe: Pipe, seconds: Double = 180) -> String {
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        let deadline = Date().addingTimeInterval(seconds)
        var line = Data()
        var byte: UInt8 = 0
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return String(decoding: line, as: UTF8.self) + " (no answer in \(Int(seconds)) s)" }
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, Int32(min(left, 1) * 1000))
            if polled < 0 && errno == EINTR || polled == 0 { continue }
            guard polled > 0, read(descriptor, &byte, 1) == 1, byte != 0x0A else { break }
            line.append(byte)
        }
        return String(decoding: line, as: UTF8.self)
    }

    /// The server of this test process; a test process that cannot start
    /// it stops here (`scripts/setup --test` installs PostgreSQL). Started, and its socket line
    /// read, on the thread that first asks, once per test process: a lazy initializer cannot be async.
    public static let shared: PostgreSQLServer = {
        do {
            return try PostgreSQLServer()
        } catch {
            fatalError("cannot start a PostgreSQL server for the tests (scripts/setup --test installs it): \(error)")
        }
    }()

    /// A server of its own, for a test that stops it (an outage): it ends
    /// when the value is released, or with the test process. Synchronous, for a suite's lazy
    /// `static let` (`WorkerFaultTests.postgres`).
    public static func dedicated() throws -> PostgreSQLServer { try PostgreSQLServer() }

    deinit { try? input.fileHandleForWriting.close() }

    /// Stops the server (a fast shutdown: sessions are ended, the data kept) until `start`. Waits for
    /// `pg_ctl` on a thread of its own, not on one of Swift's cooperative pool.
    public func stop() async { await OwnThread.run("pg_ctl stop") { self.command("stop") } }

    /// `stop` on the calling thread, for a synchronous hook that must see the server stopped before
    /// it returns (it holds its thread for `pg_ctl`, about a second).
    public func stopHere() { command("stop") }

    /// Starts the server again after `stop`; returns once it accepts connections. Waits for `pg_ctl`
    /// on a thread of its own, not on one of Swift's cooperative pool.
    public func start() async { await OwnThread.run("pg_ctl start") { self.command("start") } }

    /// Runs `body` (in which the server is stopped, and perhaps started again), then starts the server
    /// whatever `body` did: an async test's `defer { start() }`, which cannot await.
    public func startingAfter<Value>(_ body: () async throws -> Value) async rethrows -> Value {
        do {
            let value = try await body()
            await start()
            return value
        } catch {
            await start()
            throw error
        }
    }

    /// Sends a command and waits for its answer: on the calling thread, which a lock and a pipe's
    /// read hold (an async caller goes through `OwnThread`).
    private func command(_ word: String) {
        lock.lock()
        defer { lock.unlock() }
        input.fileHandleForWriting.write(Data("\(word)\n".utf8))
        let answer = Self.line(from: output)
        precondition(answer == "ok \(word)", "\(word): \(answer)")
    }

    /// A new empty database, as a libpq connection string. `createdb` runs, and its answer is read,
    /// on a thread of its own, not on one of Swift's cooperative pool.
    public func database() async -> String {
        await OwnThread.run("createdb") { self.createDatabase() }
    }

    private func createDatabase() -> String {
        lock.lock()
        defer { lock.unlock() }
        created += 1
        let name = "test_\(getpid())_\(created)"
        input.fileHandleForWriting.write(Data("createdb \(name)\n".utf8))
        let answer = Self.line(from: output)
        precondition(answer == "ok \(name)", "createdb \(name): \(answer)")
        return connectionString(database: name)
    }

    /// The connection string of a database on this server (which need not exist).
    public func connectionString(database: String, user: String = "postgres") -> String {
        "host=\(socketFolder) user=\(user) dbname=\(database)"
    }

    /// Runs SQL on a database with psql (to damage a stored value, to look at a table);
    /// gives what psql printed, unaligned, tuples only.
    @discardableResult
    public static func psql(_ conninfo: String, _ sql: String) async throws -> String {
        let process = ChildProcess()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql, conninfo]
        process.standardOutput = output
        try process.run()
        let printed = await output.fileHandleForReading.readToEndOffPool()
        guard await process.exited() == 0 else {
            throw POSIXError(.EIO, userInfo: [NSLocalizedDescriptionKey: "psql failed: \(sql)"])
        }
        return String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
