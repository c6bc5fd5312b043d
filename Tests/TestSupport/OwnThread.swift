import Foundation

/// Runs a blocking call (a read from a pipe, a C call that waits) on a thread of its own and resumes
/// the caller when it returns, so that it holds no thread of Swift's cooperative pool meanwhile.
public enum OwnThread {
    public static func run<Value: Sendable>(
        _ name: String, _ body: @escaping @Sendable () throws -> Value
    ) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result(catching: body)) }
            thread.name = name
            thread.start()
        }
    }

    public static func run<Value: Sendable>(_ name: String, _ body: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.name = name
            thread.start()
        }
    }
}

extension FileHandle {
    /// Everything left to read, to the end of the file (for a pipe: until every writer has closed it),
    /// read on a thread of its own.
    public func readToEndOffPool() async -> Data {
        await OwnThread.run("read to end") { self.readDataToEndOfFile() }
    }
}
