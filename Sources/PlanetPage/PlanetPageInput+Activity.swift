import Basics
import FeedModel

extension PlanetPageInput {
    /// Venus's and Planet 2.0's `activity_threshold = N`: a subscription
    /// whose newest entry is older than N days before the run (or that has
    /// none) says `no activity in N days` as its `message`, unless it has
    /// a message of its own (a failure says why it failed). The
    /// subscription's own setting, else the page's, else `[Planet]`'s.
    func markingInactiveSources() -> PlanetPageInput {
        var input = self
        Self.markInactive(&input.sources, settings: settings, generated: generated)
        return input
    }

    /// `markingInactiveSources` for some of a page's sources.
    static func markInactive(_ sources: inout [PlanetSource], settings: [String: String], generated: Timestamp) {
        for index in sources.indices where sources[index].message == nil {
            let source = sources[index]
            guard let text = source.properties["activity_threshold"] ?? settings["activity_threshold"],
                let days = Int(text.trimmingWhitespace), days > 0
            else { continue }
            let horizon = generated.secondsSince1970 - Int64(days) * 86_400
            if (source.newestEntry?.secondsSince1970 ?? Int64.min) < horizon {
                sources[index].message = "no activity in \(days) days"
            }
        }
    }
}
