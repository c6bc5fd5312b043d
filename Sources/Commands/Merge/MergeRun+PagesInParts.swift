import Aggregator
import FeedModel
import FeedParse
import PlanetPage
import TimelineMerge

extension MergeRun {
    /// The pages of the default theme, whose list of every subscription is
    /// made apart from the planet document (`PageSubscriptions`), and in a
    /// render as it serves its parts: a part's reports become the page's
    /// items and are let go. What is kept is each list (its items past
    /// 16 MiB on a temporary file), a 64-bit hash of each feed's address,
    /// and the sources of the feeds with entries in the timeline, which the
    /// page's entries name.
    ///
    /// Only when every page is the default theme's written as HTML: another
    /// theme reads the planet document whole, so its pages keep every report.
    struct PagesInParts {
        /// Each page's list, by its path; a list whose theme failed stays failed.
        private var lists: [String: Result<PageSubscriptions, PlanetPage.Failure>] = [:]
        private var distinct = DistinctFeeds()
        /// The sources of the feeds with entries in the timeline, by address.
        private var sources: [String: PlanetSource] = [:]

        /// What the pages are written with (`OutputContent.pageSubscriptions`).
        struct Made: Sendable {
            var lists: [String: Result<SortedSubscriptions, PlanetPage.Failure>]
            var sources: [PlanetSource]
        }

        /// Nil unless the run writes a page and every page it writes can be made so.
        init?(_ run: MergeRun) {
            let pages = run.destinations.filter { $0.kind == .page }
            guard !pages.isEmpty else { return nil }
            for destination in pages {
                guard let page = destination.page, case .xslt(let theme) = page.theme, theme.isBuiltIn,
                    OutputWriter.writesHTML(destination.path, filters: page.filters)
                else { return nil }
                let settings = run.options.pageSettings.merging(page.settings) { $1 }
                lists[destination.path] = .success(
                    PageSubscriptions(theme: theme, settings: settings, generated: run.rules.now))
            }
        }

        /// The subscriptions of a part served, after those before it.
        /// - Parameter newest: each feed's newest entry in the timeline, by address.
        mutating func add(_ reports: [FeedReport], newest: [String: Timestamp], run: MergeRun) {
            let made = run.planetSources(distinct.keep(reports), newestInTimeline: newest)
            for path in lists.keys {
                guard case .success(var list) = lists[path] else { continue }
                lists[path] = nil  // the list is changed in place, not copied
                do throws(PlanetPage.Failure) {
                    try list.add(made)
                    lists[path] = .success(list)
                } catch {
                    lists[path] = .failure(error)
                }
            }
            sources = sources.filter { newest[$0.key] != nil }
            for source in made where newest[source.feedURL] != nil { sources[source.feedURL] = source }
        }

        func made() -> Made {
            Made(lists: lists.mapValues { $0.map { $0.sorted() } }, sources: Array(sources.values))
        }
    }
}

/// The reports of distinct feeds, in order: a subscription whose feed lives
/// where an earlier one's does (its own address, or where a permanent
/// redirect moved it, as `LinkNormalizer` compares them) is left out. An
/// address is kept as its hash (Swift's `Hasher`, seeded anew in each
/// process): two feeds' addresses share one with a chance of about one in
/// 37 million at a million feeds (n² / 2⁶⁵), and a page would then list one
/// of them.
struct DistinctFeeds {
    private var seen: Set<Int> = []

    mutating func keep(_ reports: [FeedReport]) -> [FeedReport] {
        reports.filter { report in
            let address = report.movedTo ?? report.record?.movedTo ?? report.subscription.url
            return seen.insert(LinkNormalizer.normalize(address).hashValue).inserted
        }
    }
}
