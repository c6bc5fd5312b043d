import FeedModel
import Foundation
import Testing

@testable import FeedState

/// Every state step's failure is said: none is swallowed.
@Suite struct SilentStateFailureTests {
    static func fetched(_ entries: PreparedEntries) -> FeedUpdate {
        FeedUpdate(
            url: "https://a.example/feed",
            outcome: .fetched(
                entries: entries, etag: nil, lastModified: nil, metadata: FeedMetadata(), restamping: false),
            status: 200, movedTo: nil, notBefore: nil, now: Timestamp(secondsSince1970: 1_700_000_000))
    }

    /// The memory store is the reference the equivalence tests hold the SQLite store to: bytes
    /// its codec cannot read back are an encoder's bug it must show, not an entry it leaves out.
    @Test func theMemoryStoreFailsOnBytesThatDoNotDecode() throws {
        let store = MemoryStateStore()
        let broken = PreparedEntries(keys: ["id:1"], stored: [[0xFF, 0x00, 0x13]], dates: [nil])
        #expect(throws: StateError.self) { try store.record(Self.fetched(broken)) }
        var entry = Entry()
        entry.id = "urn:fine"
        try store.record(Self.fetched(PreparedEntries([entry])))
        #expect(try store.history(of: "https://a.example/feed").summary.count == 1)
    }
}
