import FeedModel
import FeedState

extension Aggregator {
    /// On the session's thread, once every outcome is settled: the store
    /// commits (an outcome it could not store becomes its feed's notice),
    /// the not-modified feeds' times are stored together, damaged histories
    /// lose their validators, health is read, and feeds that dropped entries
    /// are pruned. Each failure is a diagnostic; none stops the others.
    static func commitRun(
        _ reports: inout [FeedReport?], pending: [FeedUpdate], state: StateOptions, run: consuming StoreRun,
        now: Timestamp, recordsRead: [String: FeedRecord]? = nil, diagnostics: inout [String]
    ) {
        let committed = run.commit(pending: pending)
        noteUnstored(committed.unstored, in: &reports, diagnostics: &diagnostics)
        if case .failure(let error) = committed.pendingStored {
            diagnostics.append("state: the not-modified feeds' fetch times cannot be stored (\(error))")
            let unstored = Set(pending.map(\.url))
            for index in reports.indices
            where reports[index].map({ unstored.contains($0.subscription.url) }) ?? false {
                reports[index]?.notStored = true
            }
        }
        let damaged = reports.compactMap { $0?.historyDamaged == true ? $0?.subscription.url : nil }
        if !damaged.isEmpty {
            do {
                try committed.forgetValidators(of: damaged)
            } catch {
                diagnostics.append("state: the validators of feeds with damaged entries cannot be dropped (\(error))")
            }
        }
        if state.health {  // every outcome is stored now
            for index in reports.indices where reports[index] != nil {
                let url = reports[index]!.subscription.url
                collectHealth(
                    of: &reports[index]!, from: committed, now: now, record: recordsRead.map { $0[url] })
            }
        }
        // Only entries a feed no longer lists are ever pruned.
        let changed = reports.compactMap { report in
            report?.status == .ok && report?.listsEveryStoredEntry == false ? report?.subscription.url : nil
        }
        do {
            try committed.prune(feeds: changed, keepDays: state.keepDays, keepPerFeed: state.keepPerFeed, now: now)
        } catch {
            diagnostics.append("state: old entries cannot be pruned (\(error))")
        }
    }

    /// The store's commit: the feeds whose outcomes it could not store are noted on their reports.
    private static func noteUnstored(
        _ unstored: Result<[String: StateError], StateError>, in reports: inout [FeedReport?],
        diagnostics: inout [String]
    ) {
        switch unstored {
        case .success(let unstored):
            guard !unstored.isEmpty else { return }
            for index in reports.indices {
                guard let url = reports[index]?.subscription.url, let error = unstored[url] else { continue }
                reports[index]?.noteNotStored("its fetch cannot be recorded: \(error)")
            }
        case .failure(let error):
            diagnostics.append(
                "state: the last feeds' outcomes cannot be stored (\(error)); they are fetched whole next time")
            // Which were stored before is not known: none is counted stored.
            for index in reports.indices
            where ![FeedReport.Status.deferred, .notModified].contains(reports[index]?.status) {
                reports[index]?.notStored = true
            }
        }
    }
}
