import Basics
import FeedModel
import FeedState
import Subscriptions
import TimelineMerge

extension Aggregator {
    /// What a run knows of its feeds before it fetches any.
    struct Start {
        var records: [String: FeedRecord] = [:]
        /// Every record the store has was read: a feed without one is new.
        var recordsKnown = true
        /// What bounds each feed's stored entries' dates (a feed not here: not known).
        var storedDates: [String: StoredDates] = [:]
        /// Hosts that asked everyone to wait (`FeedSchedule.hostWaits`).
        var hostWaits: [String: Timestamp] = [:]
        var diagnostics: [String] = []
    }

    /// On the session's thread: the feeds' records (moved feeds' records
    /// following them) and what bounds their stored entries' dates.
    /// - Parameter known: the store's feed records, when the caller has read them already.
    static func start(
        _ list: SubscriptionList, known: [String: FeedRecord]?, state: StateOptions, run: borrowing StoreRun,
        now: Timestamp
    ) -> Start {
        var start = Start()
        if known == nil && state.readsListedFeedsOnly {
            readListedFeeds(of: list, into: &start, state: state, run: run, now: now)
            return start
        }
        do {
            start.records = try known ?? run.feeds()
        } catch {
            start.recordsKnown = false
            start.diagnostics.append(recordsUnreadable(error, state: state))
        }
        adoptMovedRecords(of: list, records: &start.records, run: run, diagnostics: &start.diagnostics)
        start.hostWaits = state.schedule.hostWaits(start.records.values, now: now)
        // What bounds each feed's stored entries' dates: a feed served from the state whose
        // entries all come too late for the timeline is not read. (Not known: it is read.)
        if run.keepsEntries && state.readsStoredDates {
            do {
                start.storedDates = try run.storedDates()
            } catch {
                start.diagnostics.append(
                    "state: what bounds the stored entries' dates cannot be read (\(error)): every feed served "
                        + "from the state is read whole")
            }
        }
        return start
    }

    /// What a run says when it cannot read the feeds' records.
    private static func recordsUnreadable(_ error: any Error, state: StateOptions) -> String {
        state.servesOnly
            ? "state: the feed records cannot be read (\(error))"
            : "state: the feed records cannot be read (\(error)): every feed is fetched unconditionally, "
                + "without its validators, Retry-After or cache lifetime"
    }

    /// `StateOptions.readsListedFeedsOnly`: the list's own feeds' records and stored dates, by URL.
    private static func readListedFeeds(
        of list: SubscriptionList, into start: inout Start, state: StateOptions, run: borrowing StoreRun,
        now: Timestamp
    ) {
        do {
            for (url, known) in try run.feeds(list.subscriptions.map(\.url)) {
                start.records[url] = known.record
                if run.keepsEntries && state.readsStoredDates, let dates = known.dates {
                    start.storedDates[url] = dates
                }
            }
        } catch {
            start.recordsKnown = false
            start.diagnostics.append(recordsUnreadable(error, state: state))
        }
        start.hostWaits = state.schedule.hostWaits(start.records.values, now: now)
    }

    /// What the run does with each subscription: fetch it, or serve it from the state.
    static func plans(
        _ list: SubscriptionList, start: Start, rules: TimelineRules, state: StateOptions
    ) -> [Plan] {
        list.subscriptions.map {
            let record = start.records[$0.url]
            let hostWait =
                start.hostWaits.isEmpty
                ? nil : start.hostWaits[URLAuthority.host(of: record?.movedTo ?? $0.url)]
            return Plan(
                subscription: $0, record: record, rules: rules, force: state.force,
                alreadyRead: list.alreadyRead[$0.url], keepsEntries: state.session.keepsEntries,
                serveOnly: state.servesOnly || state.claimedFeeds.map { [url = $0.url] in !$0.contains(url) } ?? false,
                // A local file costs no server anything: read on every run.
                due: state.dueOnly && Self.isWebFeed($0.url)
                    ? Plan.dueCheck(
                        record: record, stored: start.storedDates[$0.url], state: state, now: rules.now,
                        hostNotBefore: hostWait)
                    : nil,
                hostNotBefore: state.force ? nil : hostWait)
        }
    }

    /// An http or https feed: one a schedule spares a server.
    static func isWebFeed(_ url: String) -> Bool {
        let lower = url.prefix(8).lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// A subscription the state does not know under its URL (or knows only
    /// as listed, never fetched), but whose URL
    /// a known feed moved to (a 301 written back by `--update-opml`, or the
    /// list edited by hand): the feed's record and entries continue under
    /// the new URL, so its entries keep their first-seen dates.
    private static func adoptMovedRecords(
        of list: SubscriptionList, records: inout [String: FeedRecord], run: borrowing StoreRun,
        diagnostics: inout [String]
    ) {
        let movedFrom = movedRecords(records)
        guard !movedFrom.isEmpty else { return }
        let listed = Set(list.subscriptions.map(\.url))
        // A record never fetched is no history (a shared state lists a feed before it is fetched).
        for subscription in list.subscriptions where records[subscription.url]?.lastFetch == nil {
            guard let old = movedFrom[subscription.url], !listed.contains(old), var record = records[old] else {
                continue
            }
            do {
                try run.rename(feed: old, to: subscription.url)
            } catch {
                diagnostics.append("state: \(old) moved to \(subscription.url), but its state cannot follow (\(error))")
                continue
            }
            records[old] = nil
            record.url = subscription.url
            record.movedTo = nil
            records[subscription.url] = record
        }
    }

    /// Which stored feed each new URL continues (target → old URL). When
    /// several moved to the same URL, the one that last fetched well wins
    /// (its history is the freshest), then the first by URL: the choice
    /// depends on the state alone, never on a dictionary's order, so the
    /// same state gives the same outputs.
    static func movedRecords(_ records: [String: FeedRecord]) -> [String: String] {
        var movedFrom: [String: String] = [:]
        let moved = records.filter { url, record in record.movedTo.map { $0 != url } ?? false }
        for (url, record) in moved.sorted(by: { $0.key < $1.key }) {
            guard let target = record.movedTo else { continue }
            if let chosen = movedFrom[target], let other = records[chosen],
                (record.lastSuccess?.secondsSince1970 ?? .min) <= (other.lastSuccess?.secondsSince1970 ?? .min)
            {
                continue
            }
            movedFrom[target] = url
        }
        return movedFrom
    }
}
