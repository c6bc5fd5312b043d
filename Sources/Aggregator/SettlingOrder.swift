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

    /// Takes a plan's outcome.
    /// - Returns: the outcomes that can be settled now, in order, each held
    ///   only by its handover (the job that settles it changes it in place);
    ///   and the subscription lists among them, which are not settled.
    mutating func take(_ index: Int, _ outcome: Outcome) -> (
        ready: [(index: Int, outcome: Handover<Outcome>)], lists: [(index: Int, document: [UInt8])]
    ) {
        waiting[index] = outcome
        var ready: [(index: Int, outcome: Handover<Outcome>)] = []
        var lists: [(index: Int, document: [UInt8])] = []
        while let outcome = waiting.removeValue(forKey: nextToSettle) {
            let index = nextToSettle
            nextToSettle += 1
            if case .subscriptionList(let document) = outcome {
                lists.append((index, document))
                continue
            }
            ready.append((index, Handover(outcome)))
        }
        return (ready, lists)
    }
}
