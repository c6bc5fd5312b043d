import Foundation
import Testing

/// The tags that say why a test is in the tier it is in. Swift Testing 6.3
/// selects tests on the command line by name only (`swift test --filter` and
/// `--skip` match the test's id, not its tags), so the tier a test runs in is
/// chosen by an environment variable read by `.fullTier` (below), and the tags
/// mark the tests for readers and for tools that show tags.
extension Tag {
    /// Takes long enough (seconds on its own, more beside other tests) to stay
    /// out of the quick loop: also has `.fullTier`.
    @Tag public static var slow: Self
    /// Reads the third-party corpora in ../shared/corpora; skipped where they are absent
    /// (a user's clone) or hidden (`FEEDMERGE_HIDE_SHARED=1`).
    @Tag public static var corpus: Self
    /// Runs a program outside the toolchain (bash, zsh, fish, groff); skipped, with the
    /// reason, where it is not installed.
    @Tag public static var externalProgram: Self
}

/// Which tests a run includes: all of them, unless `FEEDMERGE_SKIP_SLOW=1`
/// (what `scripts/test` sets) leaves out those marked `.fullTier`.
public enum TestTier {
    public static let skipsSlow = ProcessInfo.processInfo.environment["FEEDMERGE_SKIP_SLOW"] == "1"
}

extension Trait where Self == ConditionTrait {
    /// Runs in the full tier only: skipped when `FEEDMERGE_SKIP_SLOW=1` (`scripts/test`),
    /// run by a plain `swift test` and by `scripts/test --full`.
    public static var fullTier: Self {
        .enabled(if: !TestTier.skipsSlow, "slow: left to the full tier (FEEDMERGE_SKIP_SLOW=1 is set)")
    }
}
