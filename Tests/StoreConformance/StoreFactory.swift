import FeedState
import Testing

/// How the conformance suite opens the store under test: each call gives a
/// new, empty state. A scenario opens as many as it needs.
public struct StoreFactory: Sendable, CustomTestStringConvertible {
    public let name: String
    private let open: @Sendable () async throws -> any StateStore

    /// - Parameters:
    ///   - name: the store's name, as test results and failures show it.
    ///   - open: a new, empty state of this kind.
    public init(_ name: String, open: @escaping @Sendable () async throws -> any StateStore) {
        self.name = name
        self.open = open
    }

    public func make() async throws -> any StateStore { try await open() }

    public var testDescription: String { name }

    /// The store every other is held to: the memory store, keeping entries.
    public static let reference = StoreFactory("memory") { MemoryStateStore() }
}

/// `StoreFactory` for a store whose whole content can be copied (`CopyableStateStore`).
public struct CopyableStoreFactory: Sendable, CustomTestStringConvertible {
    public let name: String
    private let open: @Sendable () async throws -> any CopyableStateStore

    public init(_ name: String, open: @escaping @Sendable () async throws -> any CopyableStateStore) {
        self.name = name
        self.open = open
    }

    public func make() async throws -> any CopyableStateStore { try await open() }

    public var testDescription: String { name }

    /// The same store as a plain one.
    public var plain: StoreFactory { StoreFactory(name, open: open) }
}

/// A store several processes share (`SharedStateStore`): each call of
/// `makeState` gives a new, empty shared state, and the state gives each
/// process its own store on it (its own connection, its own claims).
public struct SharedStoreFactory: Sendable, CustomTestStringConvertible {
    public let name: String
    private let newState: @Sendable () async throws -> SharedStateUnderTest

    /// - Parameter newState: a new, empty state and how a process opens it.
    public init(_ name: String, newState: @escaping @Sendable () async throws -> SharedStateUnderTest) {
        self.name = name
        self.newState = newState
    }

    public func makeState() async throws -> SharedStateUnderTest { try await newState() }

    public var testDescription: String { name }
}

/// One shared state, as the processes that share it open it.
public struct SharedStateUnderTest: Sendable {
    private let open: @Sendable () throws -> any SharedStateStore

    public init(open: @escaping @Sendable () throws -> any SharedStateStore) { self.open = open }

    /// One process's store on the state.
    public func process() throws -> any SharedStateStore { try open() }
}
