import FeedModel
import FeedState
import Testing

@testable import Aggregator

/// When several stored feeds moved to the same URL, which one's history the
/// new URL continues depends on the state alone.
@Suite struct MovedFeedTests {
    static func record(_ url: String, movedTo: String?, lastSuccess: Int64?) -> FeedRecord {
        var record = FeedRecord(url: url, firstSeen: Timestamp(secondsSince1970: 1_700_000_000))
        record.movedTo = movedTo
        record.lastSuccess = lastSuccess.map { Timestamp(secondsSince1970: $0) }
        return record
    }

    @Test func theFeedThatLastFetchedWellIsContinued() {
        // Twenty feeds moved to one URL; the 13th fetched well last. A dictionary's order would
        // pick any of them (it differs from process to process with the hash seed).
        var records: [String: FeedRecord] = [:]
        for index in 0..<20 {
            let url = "https://old\(index).example/feed"
            records[url] = Self.record(
                url, movedTo: "https://new.example/feed", lastSuccess: index == 13 ? 2_000 : 1_000)
        }
        records["https://elsewhere.example/feed"] = Self.record(
            "https://elsewhere.example/feed", movedTo: "https://other.example/feed", lastSuccess: nil)
        let moved = Aggregator.movedRecords(records)
        #expect(
            moved == [
                "https://new.example/feed": "https://old13.example/feed",
                "https://other.example/feed": "https://elsewhere.example/feed",
            ])
    }

    @Test func equalHistoriesGoToTheFirstURL() {
        var records: [String: FeedRecord] = [:]
        for index in [7, 3, 9, 5] {
            let url = "https://old\(index).example/feed"
            records[url] = Self.record(url, movedTo: "https://new.example/feed", lastSuccess: nil)
        }
        // Not a move: a record whose new URL is its own.
        records["https://new.example/feed"] = Self.record(
            "https://new.example/feed", movedTo: "https://new.example/feed", lastSuccess: 5_000)
        #expect(Aggregator.movedRecords(records) == ["https://new.example/feed": "https://old3.example/feed"])
    }
}
