import Testing

@testable import FeedFetch

/// The hosts' last starts are kept only while their spacing runs: a run over many hosts does not
/// keep one entry per host it ever asked.
@Suite struct RecentStartsTests {
    @Test func startsWhoseSpacingPassedAreDroppedAsTheMapGrows() {
        var starts = RecentStarts()
        let origin = ContinuousClock.now
        let spacing: (String) -> Duration = { $0 == "slow" ? .seconds(3_600) : .seconds(1) }
        starts.note("slow", at: origin, spacing: spacing)
        for index in 0..<5_000 {
            starts.note("host\(index)", at: origin + .milliseconds(index * 10), spacing: spacing)
        }
        // At most the last second's hosts (100 of them, 10 ms apart) and the one with an hour's
        // spacing, plus what came since the last pruning.
        #expect(starts.instants.count < 1_200, "\(starts.instants.count)")
        #expect(starts["slow"] == origin, "a host still resting is kept")
        #expect(starts["host4999"] != nil)
        #expect(starts["host0"] == nil)
    }
}
