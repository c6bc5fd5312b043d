import RequestSigning

/// How the client fetches: limits, timeouts, identity and address policy.
public struct FetchConfiguration: Sendable {
    /// Transfers in flight at once, in all.
    public var maximumConcurrentTransfers = 32
    /// Transfers in flight at once to one host.
    public var maximumTransfersPerHost = 4
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
    public var userAgent: String
    /// Which peer addresses are refused; `.allowAll` unless the guard is on.
    public var addressPolicy: AddressPolicy = .allowAll
    /// The key and Signature-Agent each request is signed with (Web Bot Auth); no key, no signature.
    public var webBotAuth = WebBotAuth()

    public init(userAgent: String = "feedmerge") {
        self.userAgent = userAgent
    }
}
