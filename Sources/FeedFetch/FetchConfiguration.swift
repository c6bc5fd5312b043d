import RequestSigning

/// How the client fetches: limits, timeouts, identity and address policy.
public struct FetchConfiguration: Sendable {
    /// Transfers in flight at once, in all.
    public var maximumConcurrentTransfers = 32
    /// Transfers in flight at once to one host (a host in `hostOverrides` may have its own).
    public var maximumTransfersPerHost = 4
    /// The least time between the starts of two transfers to one host
    /// (0: none). A host held back waits without holding up the others.
    public var minimumHostSpacing: Duration = .zero
    /// Hosts with limits of their own (hosts the operator runs), by their
    /// canonical key (`URLAuthority.key(ofHost:)`); set with `override(host:)`,
    /// read with `transfersAllowed(toHost:)` and `spacing(forHost:)`.
    public internal(set) var hostOverrides: [String: HostLimits] = [:]
    /// After this many answers of 429 Too Many Requests from one host, its
    /// transfers still waiting are not started (`FetchError.Code.hostThrottled`):
    /// the whole host asked to be left alone. nil: every transfer is tried.
    public var throttledHostAfter429s: Int?
    /// Connections kept open after their transfer, for the next one to the
    /// same host (libcurl's connection cache). nil: as many as the open-file
    /// limit allows, up to 1,024 (`OpenFileLimit.idleConnections`), so that
    /// a list whose feeds share hosts connects to each host once, however
    /// many hosts come between.
    public var maximumIdleConnections: Int?
    /// A decoded body larger than this fails as `tooLarge` (checked as bytes
    /// arrive, so chunked bodies and decompression bombs stop at the cap).
    public var maximumBodyBytes = 16 << 20
    public var connectTimeoutSeconds = 15
    /// A transfer slower than `lowSpeedBytesPerSecond` for `lowSpeedSeconds` fails.
    public var lowSpeedBytesPerSecond = 64
    public var lowSpeedSeconds = 20
    public var totalTimeoutSeconds = 60
    public var maximumRedirects = 5
    /// The program and its version (`feedmerge/0.1.0`).
    public var userAgent: String
    /// Where a publisher reads who runs this fetcher and how to reach them:
    /// sent in the User-Agent as `(+URL)`, the crawlers' convention.
    public var contactURL: String?
    /// The `User-Agent` header's value: the program, its version, the contact.
    public var userAgentHeader: String {
        contactURL.map { "\(userAgent) (+\($0))" } ?? userAgent
    }
    /// Which peer addresses are refused; `.allowAll` unless the guard is on.
    public var addressPolicy: AddressPolicy = .allowAll
    /// The key and Signature-Agent each request is signed with (Web Bot Auth); no key, no signature.
    public var webBotAuth = WebBotAuth()

    public init(userAgent: String = "feedmerge") {
        self.userAgent = userAgent
    }

    /// What a feed reader owes the servers it reads, by default: one
    /// transfer at a time to a host, a second between two starts there.
    public static func polite(userAgent: String) -> FetchConfiguration {
        var configuration = FetchConfiguration(userAgent: userAgent)
        configuration.maximumTransfersPerHost = 1
        configuration.minimumHostSpacing = .seconds(1)
        configuration.throttledHostAfter429s = 2
        return configuration
    }
}
