import FeedState
import Foundation
import PostgreSQLState
import SQLiteState
import StateDocument
import StoreConformance
import Synchronization
import TestSupport
import Testing

/// Every store this package has, through the conformance suite
/// (`Tests/StoreConformance`): each scenario a test case per store. A new
/// store adds a case to `Store` and runs them all, unchanged.
@Suite struct StoreConformanceTests {
    /// The stores, each opened in a folder of the test case's own (a SQLite file) or a new database.
    enum Store: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case memory, sqlite, postgreSQL

        var testDescription: String { rawValue }

        func copyable(in folder: TemporaryFolder) -> CopyableStoreFactory {
            switch self {
            case .memory:
                CopyableStoreFactory("memory") { MemoryStateStore() }
            case .sqlite:
                CopyableStoreFactory("SQLite") { try SQLiteStateStore(path: folder.newFile("state.sqlite")) }
            case .postgreSQL:
                CopyableStoreFactory("PostgreSQL") {
                    try await PostgreSQLStateStore(connecting: PostgreSQLServer.shared.database())
                }
            }
        }
    }

    @Test(arguments: StoreConformance.scenarios, Store.allCases)
    func everyStoreKeepsTheContract(_ scenario: Scenario<StoreFactory>, _ store: Store) async throws {
        let folder = try TemporaryFolder("store-conformance")
        defer { folder.remove() }
        try await scenario.run(store.copyable(in: folder).plain)
    }

    @Test(arguments: StoreConformance.copyableScenarios, Store.allCases)
    func everyCopyableStoreKeepsTheContract(_ scenario: Scenario<CopyableStoreFactory>, _ store: Store) async throws {
        let folder = try TemporaryFolder("store-conformance-copyable")
        defer { folder.remove() }
        try await scenario.run(store.copyable(in: folder))
    }

    @Test(arguments: StoreConformance.copyScenarios, [Store.memory, .sqlite, .postgreSQL])
    func aStateCopiesIntoEveryOtherStore(_ scenario: Scenario<CopyPair>, _ from: Store) async throws {
        let folder = try TemporaryFolder("store-conformance-copy")
        defer { folder.remove() }
        for to in Store.allCases where to != from {
            try await scenario.run(CopyPair(from: from.copyable(in: folder), to: to.copyable(in: folder)))
        }
    }

    /// The shared scenarios: PostgreSQL is the one store several processes share.
    static let shared = [
        SharedStoreFactory("PostgreSQL") {
            let database = await PostgreSQLServer.shared.database()
            return SharedStateUnderTest { try PostgreSQLStateStore(connecting: database) }
        }
    ]

    @Test(arguments: StoreConformance.sharedScenarios, shared)
    func everySharedStoreKeepsTheContract(_ scenario: Scenario<SharedStoreFactory>, _ store: SharedStoreFactory)
        async throws
    {
        try await scenario.run(store)
    }
}

/// A folder for one test case's files, removed at its end.
final class TemporaryFolder: Sendable {
    let path: String
    private let files = Atomic<Int>(0)

    init(_ name: String) throws {
        path =
            FileManager.default.temporaryDirectory.appendingPathComponent("feedmerge-\(name)-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A new file's path in the folder (each call another).
    func newFile(_ name: String) -> String { "\(path)/\(files.add(1, ordering: .relaxed).newValue)-\(name)" }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
