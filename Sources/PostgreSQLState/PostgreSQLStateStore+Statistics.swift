import FeedState

/// The planner's statistics kept up with a state that grows fast.
///
/// The store prepares each statement once per connection, and the server
/// plans it once for every call from the statistics of that moment. Planned
/// while the tables were nearly empty (a new state, a list just subscribed,
/// a first run), a lookup by URL can be a scan of the whole table, which
/// costs each call more as the table grows: a first run's server time then
/// grows with the square of its feeds (measured: 0.6 ms a feed's history at
/// 10,000 feeds, against 0.005 ms at 2,000: its plan scanned every document
/// for the one of the feed). Autovacuum's ANALYZE comes a
/// minute or more late, and a run of 10,000 feeds is over by then. So the
/// store analyzes the tables itself whenever the rows it added since it
/// last did reach the rows the tables had then (and at least `least`):
/// a few times in a run that builds a state, never in a run that changes
/// none, and each makes the server plan the statements again from the truth.
struct TableStatistics {
    /// The rows of the smaller table (feeds, or their documents) when the tables were last
    /// analyzed (0: not by this store). A table analyzed empty is planned as empty: its
    /// first rows must be counted soon (a seq scan of "no rows" in every lookup's plan).
    var rowsThen = 0
    /// Rows the store added since (feeds, and their first documents).
    var added = 0
    static let least = 1_000

    var isStale: Bool { added >= max(Self.least, rowsThen) }
}

extension PostgreSQLStateStore {
    /// Notes rows added; analyzes the tables once they are many enough (`TableStatistics`).
    /// A failure is left unsaid: nothing is lost but speed, and a connection it
    /// found lost is found again by the next statement, which reports it.
    func noteAdded(_ rows: Int) {
        statistics.added += rows
        guard statistics.isStale, batch.isEmpty else { return }
        do throws(StateError) {
            // The columns statements look rows up by; the row counts come with any list.
            try connection.execute("ANALYZE feeds (url, host, next_check, listed_at), feed_entries (feed)")
            var rows: Int64 = 0
            try connection.query(
                "SELECT greatest(min(reltuples), 0)::bigint FROM pg_class WHERE oid IN ('feeds'::regclass, 'feed_entries'::regclass)"
            ) { row throws(StateError) in rows = try row.integer(0, notNull: "pg_class.reltuples") }
            statistics = TableStatistics(rowsThen: Int(rows))
        } catch {
            statistics.added = 0
        }
    }
}
