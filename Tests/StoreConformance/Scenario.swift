import Testing

/// One part of the contract, run against any store a factory opens:
/// `StoreConformance.scenarios` and its siblings list them, and a store's
/// tests run each as a test case (`@Test(arguments:)`).
public struct Scenario<Factory: Sendable>: Sendable, CustomTestStringConvertible {
    public let name: String
    private let body: @Sendable (Factory) async throws -> Void

    init(_ name: String, _ body: @escaping @Sendable (Factory) async throws -> Void) {
        self.name = name
        self.body = body
    }

    /// Runs the scenario; what does not hold is recorded as an expectation failed (`#expect`).
    /// (A scenario that waits for a lease's time to pass waits without holding a thread.)
    public func run(_ factory: Factory) async throws { try await body(factory) }

    public var testDescription: String { name }
}

/// Copying runs from one store into another.
public struct CopyPair: Sendable, CustomTestStringConvertible {
    public let from: CopyableStoreFactory
    public let to: CopyableStoreFactory

    public init(from: CopyableStoreFactory, to: CopyableStoreFactory) {
        self.from = from
        self.to = to
    }

    public var testDescription: String { "\(from.name) to \(to.name)" }
}

/// The contract a store keeps, as scenarios (see `Tests/StoreConformanceTests` for how a store
/// runs them): `scenarios` for every store, `copyableScenarios` for every copyable one,
/// `copyScenarios` for every two, `sharedScenarios` for a store several processes share.
public enum StoreConformance {
    public static let scenarios: [Scenario<StoreFactory>] =
        outcomeScenarios + historyScenarios + retentionScenarios + [sameFactsAsTheReference]
    public static let copyableScenarios: [Scenario<CopyableStoreFactory>] = copyable
    public static let copyScenarios: [Scenario<CopyPair>] = copying
    public static let sharedScenarios: [Scenario<SharedStoreFactory>] = claiming + fencing
}
