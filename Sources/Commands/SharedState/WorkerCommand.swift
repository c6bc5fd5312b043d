import Aggregator
import Basics
import FeedFetch
import FeedModel
import FeedState
import Foundation
import PostgreSQLState
import Subscriptions
import Telemetry
import TimelineMerge
import WebSub

/// `feedmerge worker`: a long-running process over a PostgreSQL state that
/// claims hosts with due feeds, fetches and stores them, and claims again
/// (`Worker`). Any number run at once, on any machines; `feedmerge render`
/// writes the outputs. SIGTERM or SIGINT stops it gracefully: it claims no
/// more, finishes the feeds it holds, lets their hosts go, and exits 0 (a
/// second signal ends it at once; its leases then run out).
struct WorkerCommand {
    var merge = MergeOptions()
    var name: String?
    var leaseSeconds = Worker.Settings(name: "").leaseSeconds
    var hostsPerClaim = 0
    var drain = false
    /// `--log-format`: nil, text (or the journal's form under systemd).
    var logFormat: ServiceLog.Format?
    var metricsListen: String?
    var unhealthyAfter = 60
    /// `--websub-callback`, `--websub-listen`, `--websub-backstop`.
    var websubCallback: String?
    var websubListen: String?
    var websubBackstop = WebSubSubscriber.Settings(callback: "").backstopSeconds

    static let interface = CommandInterface<WorkerCommand>(
        name: "feedmerge worker",
        brief: "fetch due feeds into a shared PostgreSQL state, continuously",
        synopsis: "feedmerge worker --state postgresql://... [options] SOURCE...",
        summary: """
            Fetches the feeds of a PostgreSQL state as they fall due, until stopped. Any
            number of workers share one database, on one machine or many: each claims
            hosts no other holds (a lease, renewed while it fetches), so every due feed
            is fetched by one of them, the per-host limit and a host's Retry-After hold
            across all of them, and a worker that dies loses its hosts when their lease
            runs out. Each feed is next due by how often it posts, its ttl or
            sy:updatePeriod, its failures and the server's wishes (docs/state.md).
            SOURCE: the subscriptions (as for feedmerge); every worker should be given the
            same list. The state fetches the feeds some run listed within two days.
            Outputs are written by feedmerge render. SIGTERM: claims no more, finishes
            what it holds, lets it go, exits 0.
            """,
        groups: [
            OptionGroup(
                "Worker",
                [
                    Option("--state", value: "DB", help: "the shared state: a PostgreSQL database (required)") {
                        $0.merge.statePath = $1
                    },
                    Option("--name", value: "NAME", help: "who this worker is, in --health (default: HOST:PID)") {
                        $0.name = $1
                    },
                    Option(
                        "--lease", value: "S", help: "seconds a claimed host stays this worker's if it stops renewing",
                        default: { "\($0.leaseSeconds)" }
                    ) { $0.leaseSeconds = try OptionValue.positive($1, for: "--lease") },
                    Option(
                        "--hosts", value: "N",
                        help: "hosts claimed at a time (default: twice what --jobs and\n--per-host keep busy)"
                    ) { $0.hostsPerClaim = try OptionValue.positive($1, for: "--hosts") },
                    Option("--drain", help: "exit once nothing this worker may claim is due") { command, _ in
                        command.drain = true
                    },
                    Option(
                        "--keep-days", value: "N", help: "keep entries a feed no longer lists for N days",
                        default: { "\($0.merge.keepDays)" }
                    ) { $0.merge.keepDays = try OptionValue.count($1, for: "--keep-days") },
                    Option(
                        "--keep-per-feed", value: "N", help: "and at most the newest N stored per feed",
                        default: { "\($0.merge.keepPerFeed)" }
                    ) { $0.merge.keepPerFeed = try OptionValue.count($1, for: "--keep-per-feed") },
                    Option(
                        "--now", value: "DATE", help: "the time it runs at (default: the clock, read at each claim)"
                    ) { $0.merge.now = try OptionValue.date($1, for: "--now") },
                    Option("-q", "--quiet", help: "no summary line") { command, _ in command.merge.quiet = true },
                    Option("-v", "--verbose", help: "a line for each claim, with its counts") { command, _ in
                        command.merge.verbose = true
                    },
                ]),
            OptionGroup(
                "Operating",
                [
                    Option(
                        "--log-format", value: "text|json",
                        help: "text: each line begins with its time (RFC 3339, UTC), or under\n"
                            + "systemd's journal with its priority; json: one object per line"
                    ) { command, text in
                        guard text == "text" || text == "json" else {
                            throw UsageError("--log-format is one of text, json, not '\(text)'")
                        }
                        command.logFormat = text == "json" ? .json : nil
                    },
                    Option(
                        "--metrics-listen", value: "HOST:PORT",
                        help: "serve /metrics (Prometheus) and /healthz over HTTP there\n(127.0.0.1:9464)"
                    ) { $0.metricsListen = try OptionValue.listenAddress($1, for: "--metrics-listen") },
                    Option(
                        "--unhealthy-after", value: "S",
                        help: "/healthz answers 503 once the state cannot be used for S seconds",
                        default: { "\($0.unhealthyAfter)" }
                    ) { $0.unhealthyAfter = try OptionValue.count($1, for: "--unhealthy-after") },
                ]),
            OptionGroup(
                "WebSub (receiving pushes from the hubs feeds advertise)",
                [
                    Option(
                        "--websub-callback", value: "URL",
                        help: "the public address hubs deliver to (it reaches --websub-listen):\n"
                            + "feeds that advertise a hub are subscribed there"
                    ) { command, text in
                        let lower = text.lowercased()
                        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"),
                            !text.contains(where: { $0 == " " || $0 == "?" || $0 == "#" })
                        else {
                            throw UsageError("--websub-callback wants an http(s) URL without a query, not '\(text)'")
                        }
                        command.websubCallback = text
                    },
                    Option(
                        "--websub-listen", value: "HOST:PORT",
                        help: "where the callback listens (behind --websub-callback)"
                    ) { $0.websubListen = try OptionValue.listenAddress($1, for: "--websub-listen") },
                    Option(
                        "--websub-backstop", value: "S",
                        help: "a feed whose hub pushes it is polled at most every S seconds",
                        default: { "\($0.websubBackstop)" }
                    ) { $0.websubBackstop = Int64(try OptionValue.positive($1, for: "--websub-backstop")) },
                ]),
            FetchOptions.group(
                \WorkerCommand.merge.fetch,
                maxBytesHelp:
                    "largest feed read, decoded; a bigger one is cut there and keeps\nthe entries that arrived whole"),
        ],
        operandName: "SOURCE",
        operand: { command, source in command.merge.sources.append(source) },
        notes: """
            A state that cannot be used (the server gone, restarting) is tried again, every
            15 s at most, for as long as the worker runs (with --drain, for 10 s); each loss
            and each return is said on standard error with its time, as is any outcome that
            could not be stored. A host whose lease is lost (a stall past --lease, another
            worker holds it) is asked no more at once.
            Exit status: 0 when stopped (a signal, or --drain with nothing due) with the state
            working; 2 a usage error; 74 the state cannot be used: at the start (not
            PostgreSQL, unreachable), or when it stops (a signal, or --drain) with due work
            left because the state could not be used.
            """,
        examples: [
            (
                "A worker per machine, and the outputs rendered every 10 minutes from cron:",
                "feedmerge worker --state postgresql://planet@db/planet feeds.opml"
            )
        ])

    static func parse(_ arguments: some Sequence<String>) throws(UsageError) -> Request<WorkerCommand> {
        let request = try interface.parse(arguments, into: WorkerCommand())
        guard case .run(let command) = request else { return request }
        guard !command.merge.sources.isEmpty else { throw UsageError("no SOURCE given") }
        guard let state = command.merge.statePath else {
            throw UsageError("a worker needs the shared state it works on: --state postgresql://...")
        }
        guard case .postgreSQL = StateLocation(state) else {
            throw UsageError("--state \(state): workers share a PostgreSQL state (postgresql://... or key=value words)")
        }
        _ = try command.merge.rules(now: Timestamp(secondsSince1970: 0))
        try FetchOptions.check(command.merge.fetch)
        guard (command.websubCallback == nil) == (command.websubListen == nil) else {
            throw UsageError(
                "--websub-callback and --websub-listen go together: the address hubs use, and where it listens")
        }
        return request
    }

    func run() async -> Int32 {
        let opened: StateLocation.Session
        do {
            opened = try await StateLocation(merge.statePath!).openSession(whenLost: .triedAtEachCall)
        } catch {
            StandardOutput.error("feedmerge worker: state: \(error)")
            return (error.kind == .cannotCreate ? ExitStatus.stateCannotBeCreated : .stateUnusable).rawValue
        }
        let session = opened.session
        guard session.isShared else {
            StandardOutput.error("feedmerge worker: state: not a shared state")
            return ExitStatus.stateUnusable.rawValue
        }
        let client = HTTPClient(configuration: merge.fetchConfiguration)
        var list = PackedSubscriptions()
        do {
            try await SourceReader.read(merge.sources, client: client, into: &list)
            var filters = FilterSetup(
                folders: [FileManager.default.currentDirectoryPath], timeLimit: merge.themeTimeout)
            try filters.apply(merge.entryFilters, to: &list)
        } catch let error as UsageError {
            StandardOutput.error("feedmerge worker: \(error.message)")
            return ExitStatus.usage.rawValue
        } catch {
            StandardOutput.error("feedmerge worker: \(error)")
            return ExitStatus.usage.rawValue
        }
        guard !list.isEmpty else {
            StandardOutput.error("feedmerge worker: the sources list no feed")
            return ExitStatus.usage.rawValue
        }
        // The id a render of this state gives the merged feed when nothing else names it; a state
        // that cannot be reached now gets it from the first run or worker that reaches it (said below).
        var idNotKept: StateError?
        do throws(StateError) {
            let id = MergedFeedID.hash(of: list.urls)
            // The worker itself writes no feed.
            _ = try await session.keepMergedFeedID(id)
        } catch {
            idNotKept = error
        }
        var settings = Worker.Settings(name: name ?? "\(SharedClaims.machineName):\(getpid())")
        settings.leaseSeconds = leaseSeconds
        settings.hostsPerClaim = hostsPerClaim
        settings.drain = drain
        var state = StateOptions(session: session)
        state.keepDays = merge.keepDays
        state.keepPerFeed = merge.keepPerFeed
        state.newFeedItems = merge.newFeedItems
        let stop = Locked<Int32?>(nil)
        let verbose = merge.verbose
        let serviceLog = ServiceLog(program: "feedmerge worker", worker: settings.name, format: logFormat)
        let log: @Sendable (LogEvent) -> Void = { event in
            if event.event == "claim" && !verbose { return }
            serviceLog.write(event)
        }
        Termination.onFirstSignal { number in
            stop.withLock { $0 = number }
            log(
                LogEvent(
                    .info, "stopping",
                    "\(number == SIGINT ? "SIGINT" : "SIGTERM"): claiming no more; the feeds held are finished, "
                        + "then their hosts let go (a second signal ends it at once)"))
        }
        let metrics = MetricRegistry.feedmerge(version: feedmergeVersion)
        var subscriber: WebSubSubscriber?
        var callback: CallbackListener?
        if let websubCallback, let websubListen {
            var websub = WebSubSubscriber.Settings(callback: websubCallback)
            websub.backstopSeconds = websubBackstop
            websub.maximumBodyBytes = merge.fetch.maximumBodyBytes
            let made = WebSubSubscriber(settings: websub)
            do {
                callback = try CallbackListener(listening: websubListen, subscriber: made)
            } catch {
                StandardOutput.error("feedmerge worker: --websub-listen \(error)")
                return ExitStatus.usage.rawValue
            }
            subscriber = made
        }
        let worker = await Worker(
            settings: settings, list: list, state: state, client: client, metrics: metrics,
            subscriber: subscriber, log: log)
        var listening: MetricsListener?
        let stateLost = worker.stateLost
        if let metricsListen {
            let threshold = Duration.seconds(unhealthyAfter)
            do {
                listening = try MetricsListener(listening: metricsListen, metrics: metrics) {
                    if stop.withLock({ $0 }) != nil { return "stopping" }
                    guard let loss = stateLost.withLock({ $0 }) else { return nil }
                    let lost = ContinuousClock.now - loss.since
                    guard lost >= threshold else { return nil }
                    return "the state cannot be used for \(lost.components.seconds) s: \(loss.reason)"
                }
            } catch {
                StandardOutput.error("feedmerge worker: --metrics-listen \(error)")
                return ExitStatus.usage.rawValue
            }
        }
        log(startEvent(settings: settings, feeds: list.count, listening: listening?.address))
        if let callback {
            log(
                LogEvent(
                    .info, "websub_listening",
                    "websub: the callback listens on \(callback.address) for \(websubCallback ?? ""); a pushed feed "
                        + "is polled every \(websubBackstop) s at most", [("address", .text(callback.address))]))
        }
        if let idNotKept {
            log(
                LogEvent(
                    .warning, "state_error",
                    "state: the merged feed's id cannot be kept (\(idNotKept)); the first run or worker that can "
                        + "keeps it"))
        }
        // A second signal ends the worker at once: its hosts are let go first.
        let keeper = worker.keeper
        Termination.onSignal {
            do {
                try keeper.abandon()
            } catch {
                log(
                    LogEvent(
                        .error, "state_error", "state: the held hosts cannot be let go (\(error)); their leases run out"
                    ))
            }
        }
        Termination.farewell { number in
            let name = number == SIGINT ? "SIGINT" : "SIGTERM"
            serviceLog.write(
                LogEvent(.warning, "stopped", "stopped at once by a second \(name); the claimed feeds are left due"))
        }
        let options = merge
        let totals = await worker.run(
            rules: {
                let now = options.now ?? Timestamp(secondsSince1970: Int64(Date().timeIntervalSince1970))
                return try options.rules(now: now)
            },
            stopping: { stop.withLock { $0 } != nil })
        if !merge.quiet {
            let stopped = stop.withLock { $0 }.map { $0 == SIGINT ? "; stopped by SIGINT" : "; stopped by SIGTERM" }
            log(
                LogEvent(
                    .info, "stop",
                    "\(totals.fetched) fetched, \(totals.notModified) not modified, \(totals.failed) failed, "
                        + "\(totals.notStored) not stored, \(totals.leasesLost) leases lost (\(totals.claims) claims, "
                        + "\(totals.hosts) hosts)\(stopped ?? "")",
                    [
                        ("fetched", .integer(totals.fetched)), ("not_modified", .integer(totals.notModified)),
                        ("failed", .integer(totals.failed)), ("not_stored", .integer(totals.notStored)),
                        ("leases_lost", .integer(totals.leasesLost)), ("claims", .integer(totals.claims)),
                        ("hosts", .integer(totals.hosts)),
                    ]))
        }
        withExtendedLifetime(listening) {}
        withExtendedLifetime(opened) {}
        if totals.rulesFailed { return ExitStatus.usage.rawValue }
        return (totals.stoppedWithStateFailing ? ExitStatus.stateUnusable : .success).rawValue
    }

    /// The first line: what runs, on what, as what (the state's password left out).
    private func startEvent(settings: Worker.Settings, feeds: Int, listening: String?) -> LogEvent {
        let state = ConnectionString.redacted(merge.statePath!)
        let perHost = merge.fetch.maximumTransfersPerHost
        let jobs = merge.fetch.maximumConcurrentTransfers
        var message =
            "feedmerge \(feedmergeVersion) starting: state \(state), \(feeds) feeds listed, --jobs \(jobs), "
            + "--per-host \(perHost), --lease \(settings.leaseSeconds) s"
        if settings.hostsPerClaim > 0 { message += ", --hosts \(settings.hostsPerClaim)" }
        if settings.drain { message += ", --drain" }
        if let listening { message += "; /metrics and /healthz on http://\(listening)" }
        var fields: [(key: String, value: LogEvent.Value)] = [
            ("version", .text(feedmergeVersion)), ("state", .text(state)), ("feeds", .integer(feeds)),
            ("jobs", .integer(jobs)), ("per_host", .integer(perHost)),
            ("lease_seconds", .integer(settings.leaseSeconds)),
        ]
        if let listening { fields.append(("metrics_listen", .text(listening))) }
        return LogEvent(.info, "start", message, fields)
    }
}
