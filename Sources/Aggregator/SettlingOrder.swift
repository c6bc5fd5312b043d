/// Which plans a run starts next and which finished outcomes it settles:
/// outcomes are settled in subscription order, whichever server answers
/// first, so which copy of a cross-post stays, and what a full timeline
/// rejects, depend on the subscription list alone. A finished feed waits
/// for those listed before it; at most `4 * window` of them wait, so a slow
/// feed near the top cannot make every parsed feed of a long list wait in
/// memory (the run slows down instead).
struct SettlingOrder {
    let plans: Int
    /// How many plans run at once.
    let window: Int
    private var next = 0
    private var nextToSettle = 0
    private var waiting: [Int: Outcome] = [:]

    init(plans: Int, window: Int) {
        self.plans = plans
        self.window = window
    }

    /// The next plan to start, while the window has room.
    mutating func nextToStart() -> Int? {
        guard next < plans, next - nextToSettle < 4 * window, next - nextToSettle - waiting.count < window else {
            return nil
        }
        defer { next += 1 }
        return next
    }

    /// Takes a plan's outcome, to be settled in its turn.
    mutating func arrived(_ index: Int, _ outcome: consuming Outcome) {
        waiting[index] = outcome
    }

    /// The next outcome to settle, if it has arrived: held by the caller
    /// alone (the order keeps no copy), so it can be changed in place.
    mutating func nextReady() -> (index: Int, outcome: Outcome)? {
        guard let outcome = waiting.removeValue(forKey: nextToSettle) else { return nil }
        defer { nextToSettle += 1 }
        return (nextToSettle, outcome)
    }
}
