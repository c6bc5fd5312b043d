import Aggregator
import FeedParse

extension FeedReport {
    /// Why a fetched feed was read only in part (cut short, or not well-formed
    /// and recovered): its entries up to there are kept, and it is not simply
    /// ok. nil for a feed read whole, or not read this run.
    var partialReason: String? {
        guard status == .ok else { return nil }
        return warnings.first(where: ParseWarning.isTruncation) ?? warnings.first(where: ParseWarning.isRecovery)
    }
}
