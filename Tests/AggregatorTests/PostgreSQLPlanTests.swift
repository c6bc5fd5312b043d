import FeedModel
import TestSupport
import Testing

@testable import FeedState
@testable import PostgreSQLState

/// The server plans each of the store's statements once per connection: a
/// statement planned while the state was nearly empty must not go on
/// scanning whole tables once it is not (`TableStatistics`).
@Suite struct PostgreSQLPlanTests {
    /// A worker's first claims on a new database: 10,000 feeds subscribed, then stored as a
    /// run stores them (each feed's history read, then its outcome), and the plan the
    /// store's connection keeps for a feed's document: index lookups, no scan of every
    /// document (planned while there were none, it scanned them all for each feed).
    @Test func aFeedsDocumentIsLookedUpByIndexOnceTheStateHasGrown() async throws {
        let store = try PostgreSQLStateStore(connecting: await PostgreSQLServer.shared.database())
        var metadata = FeedMetadata()
        metadata.title = Text("Feed")
        let urls = (0..<10_000).map { "https://blog\($0 % 250).example.org/feeds/\($0)/atom.xml" }
        #expect(try store.subscribe(urls, now: Timestamp(secondsSince1970: 1_706_745_600)).isEmpty)
        for (index, url) in urls.enumerated() {
            _ = try store.history(of: url)
            var entry = Entry()
            entry.id = "urn:\(index)"
            entry.title = Text("Entry \(index)")
            try store.record(
                FeedUpdate(
                    url: url,
                    outcome: .fetched(
                        entries: PreparedEntries([entry]), etag: nil, lastModified: nil, metadata: metadata,
                        restamping: false),
                    status: 200, movedTo: nil, notBefore: nil, now: Timestamp(secondsSince1970: 1_706_745_600)))
            if index % 100 == 99 { #expect(try store.commit().isEmpty) }
        }
        #expect(try store.commit().isEmpty)
        // The plan the connection uses for every call from now on (its cached generic plan).
        try store.connection.execute("SET plan_cache_mode = force_generic_plan")
        var plan: [String] = []
        try store.connection.query("EXPLAIN EXECUTE select_document('https://blog0.example.org/feeds/0/atom.xml')") {
            row in
            plan.append(row.text(0) ?? "")
        }
        #expect(plan.contains { $0.contains("Index Scan using feed_entries_pkey") }, "\(plan.joined(separator: "\n"))")
        #expect(!plan.contains { $0.contains("Seq Scan") }, "\(plan.joined(separator: "\n"))")
        #expect(try store.history(of: "https://blog0.example.org/feeds/0/atom.xml").summary.count == 1)
    }
}
