/// Hosts asked only while the process holds them: a shared state's leases
/// (`feedmerge worker`). A host named here is asked until its deadline
/// only: after it, a waiting transfer to it is not started and a running
/// one is cancelled, each failing as `FetchError.Code.withdrawn`. Hosts are
/// the canonical keys `URLAuthority.host(of:)` makes, the ones the per-host
/// limit counts. A host never named is asked freely.
///
/// The deadline is checked on the transfer thread right before each
/// transfer starts, so a process stopped past its lease (SIGSTOP, a pause)
/// starts nothing on those hosts when it resumes, whichever of its threads
/// runs first.
extension HTTPClient {
    /// Asks these hosts until `deadline` (replacing what was said of them before).
    public func allow(_ hosts: some Sequence<String>, until deadline: ContinuousClock.Instant) {
        engine.setDeadlines(hosts, to: deadline)
    }

    /// Stops asking these hosts at once: their waiting transfers fail and
    /// their running ones are cancelled, as will later ones until `allow`.
    public func withdraw(_ hosts: some Sequence<String>) {
        engine.setDeadlines(hosts, to: nil)
    }

    /// Waits until each of these hosts' spacing (`FetchConfiguration.spacing(forHost:)`)
    /// has passed since its last transfer started: a process that lets a
    /// host go does so only then, so the next holder's first request keeps
    /// the spacing too.
    public func waitForSpacing(of hosts: some Sequence<String>) async {
        let configuration = engine.configuration
        let until = engine.lastStarts(of: hosts).compactMap { host, last in
            let spacing = configuration.spacing(forHost: host)
            return spacing > .zero ? last + spacing : nil
        }.max()
        if let until, until > .now { try? await Task.sleep(until: until, clock: .continuous) }
    }

    /// Forgets what was said of these hosts (the process let them go and asks them no more).
    public func forget(_ hosts: some Sequence<String>) {
        engine.forgetDeadlines(hosts)
    }
}

/// When each restricted host may be asked until; nil: not at all.
struct HostDeadlines: Sendable {
    private var deadlines: [String: ContinuousClock.Instant?] = [:]

    var isEmpty: Bool { deadlines.isEmpty }

    mutating func set(_ host: String, _ deadline: ContinuousClock.Instant?) { deadlines[host] = .some(deadline) }

    mutating func forget(_ host: String) { deadlines[host] = nil }

    /// Whether `host` may not be asked at `now`.
    func withdraws(_ host: String, at now: ContinuousClock.Instant) -> Bool {
        guard let deadline = deadlines[host] else { return false }
        return deadline.map { now >= $0 } ?? true
    }

    /// The first deadline after `now`, if any: when the transfer thread must look again.
    func next(after now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        deadlines.values.compactMap { $0 }.filter { $0 > now }.min()
    }
}
