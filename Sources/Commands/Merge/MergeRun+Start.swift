import Aggregator
import FeedFetch
import FeedState
import Foundation
import SQLiteState
import Subscriptions

extension MergeRun {
    /// A step that ends the run before anything is fetched: it has said why
    /// and discarded the outputs it reserved.
    struct Stop: Error {
        let status: ExitStatus
    }

    /// The state as the run opened it.
    struct OpenedState {
        /// The state file's lock, held until the run ends.
        var lock: StateLock?
        var state: StateOptions?
        /// What the state knows of each feed; sources among them are not read ahead (see SourceReader).
        var records: [String: FeedRecord]?
        /// `feedmerge render` given no SOURCE (parsed only with a shared state): the first page of
        /// the feeds it lists (`RenderSizes.listedPage`; `render` reads the rest as it goes).
        var listed: [String] = []
    }

    /// Step 1: every `-o`, `--health` and `--metrics` reserved (a temporary file each).
    func reserveOutputs() throws(Stop) -> Outputs {
        do {
            return try Outputs.reserve(destinations, health: options.healthPath, metrics: options.metricsPath)
        } catch {
            for message in error.messages { StandardOutput.error("feedmerge: \(message)") }
            StandardOutput.error("feedmerge: no feed was fetched, no output written")
            throw Stop(status: .nothingWritten)
        }
    }

    /// Step 2: the state locked and opened, and its records read (none without a state).
    func openState(_ outputs: Outputs) async throws(Stop) -> OpenedState {
        var result = OpenedState()
        guard let stateLocation else { return result }
        do throws(StateError) {
            // `feedmerge render` changes nothing in the state.
            let open = try await stateLocation.openSession(access: options.renderOnly ? .readOnly : .readWrite)
            result.lock = open.lock
            if options.rendersWholeState {
                result.listed = try await open.session.listedFeeds(now: rules.now, limit: renderSizes.listedPage) ?? []
            }
            // A render reads each part's records as it serves it (`MergeRun.render`).
            if !options.renderOnly {
                result.records = try await open.session.read { store throws(StateError) in try store.feeds() }
            }
            result.state = stateOptions(session: open.session)
            return result
        } catch {
            outputs.discard()
            switch error.kind {
            case .held:
                StandardOutput.error("feedmerge: state: \(error)")
                throw Stop(status: .stateLocked)
            case .cannotCreate:
                StandardOutput.error("feedmerge: state: \(error)")
                throw Stop(status: .stateCannotBeCreated)
            case .unusable, .damaged:
                StandardOutput.error("feedmerge: state: \(error); nothing was done")
                throw Stop(status: .stateUnusable)
            }
        }
    }

    /// Step 3: the sources read (or the feeds the state lists) and each
    /// subscription's filters compiled; a list with no feed, or an RSS
    /// output with no channel link, ends the run. A render holds its list
    /// packed (`packed`: it serves it a part at a time); `list` then has
    /// only the list's head and warnings.
    func readSources(
        listedInState: [String], client: HTTPClient, outputs: Outputs
    ) async throws(Stop) -> (list: SubscriptionList, filters: FilterSetup, packed: PackedSubscriptions?) {
        func stop(_ message: String) -> Stop {
            outputs.discard()
            StandardOutput.error(message)
            return Stop(status: .usage)
        }
        var filters = FilterSetup(
            folders: [FileManager.default.currentDirectoryPath] + options.filterFolders, timeLimit: options.themeTimeout
        )
        if options.rendersWholeState {
            // Its feeds come a page at a time (`render`), with the run's filters (compiled now).
            do {
                _ = try filters.runFilters(options.entryFilters)
            } catch {
                throw stop("feedmerge: \(error.message)")
            }
            guard !listedInState.isEmpty else { throw stop("feedmerge: the state lists no feed") }
            if let message = missingLink(outputs, SubscriptionList()) { throw stop(message) }
            return (SubscriptionList(), filters, nil)
        }
        if options.renderOnly {
            var packed = PackedSubscriptions()
            do {
                try await SourceReader.read(
                    options.sources, configured: options.subscriptions, client: client, into: &packed)
                try filters.apply(options.entryFilters, to: &packed)
            } catch let error as UsageError {
                throw stop("feedmerge: \(error.message)")
            } catch {
                throw stop("feedmerge: \(error)")
            }
            guard !packed.isEmpty else { throw stop("feedmerge: the sources list no feed") }
            var head = SubscriptionList()
            head.title = packed.title
            head.ownerName = packed.ownerName
            head.ownerEmail = packed.ownerEmail
            head.homePage = packed.homePage
            head.warnings = packed.warnings
            if !packed.indices.contains(where: { packed.subscription(at: $0).mayBeList }),
                let message = missingLink(outputs, head)
            {
                throw stop(message)
            }
            return (head, filters, packed)
        }
        var list: SubscriptionList
        do {
            list = try await SourceReader.read(options.sources, configured: options.subscriptions, client: client)
        } catch {
            throw stop("feedmerge: \(error)")
        }
        do {
            try filters.apply(options.entryFilters, to: &list)
        } catch {
            throw stop("feedmerge: \(error.message)")
        }
        guard !list.subscriptions.isEmpty else {
            throw stop("feedmerge: the sources list no feed")
        }
        // A SOURCE that may still turn out to be a list may still give an OPML head with a link.
        if !list.subscriptions.contains(where: \.mayBeList), let message = missingLink(outputs, list) {
            throw stop(message)
        }
        return (list, filters, nil)
    }

    private func stateOptions(session: StateSession) -> StateOptions {
        var state = StateOptions(session: session)
        state.force = options.force
        state.keepDays = options.keepDays
        state.keepPerFeed = options.keepPerFeed
        // The page shows each feed's health too.
        state.health = options.healthPath != nil || writesPage
        state.newFeedItems = options.newFeedItems
        state.dueOnly = options.dueOnly
        state.servesOnly = options.renderOnly
        return state
    }
}
