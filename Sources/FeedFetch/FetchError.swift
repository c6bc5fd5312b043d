import FeedModel
import Glibc

/// Why a fetch gave no body. Carries the URL, the stage, and what libcurl
/// (or the server) said.
public struct FetchError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        /// A non-2xx, non-304 status; the status is in `status`.
        case httpStatus
        /// Connection refused or reset, DNS failure, TLS error, truncated body.
        case transport
        /// Connect, low-speed or total timeout.
        case timeout
        /// The decoded body passed the size cap.
        case tooLarge
        /// A scheme other than http/https, also on a redirect.
        case refusedProtocol
        /// An address the address policy refuses (loopback, private, ...).
        case refusedAddress
        /// A URL not fetched at all: longer than `HTTPClient.maximumURLBytes`,
        /// or holding a control character (which no URL may, and no state can store).
        case refusedURL
        /// More than the allowed number of redirects, or a loop.
        case tooManyRedirects
        /// A Content-Encoding that could not be decoded.
        case badEncoding
        /// A local file that could not be read.
        case file
        /// A local file or `file:` URL that the operator did not name
        /// (listed by a subscription list fetched over the network): not
        /// opened, not even tested for existence.
        case refusedLocalFile
        /// The task was cancelled, or the client was shut down.
        case cancelled
        /// Not asked, or stopped mid-transfer: the process no longer holds
        /// the host (`HTTPClient.withdraw`, or its `allow` deadline passed).
        /// Not the feed's failure: its host's next holder asks it.
        case withdrawn
        /// Not asked: its host answered 429 to this process several times
        /// (`FetchConfiguration.throttledHostAfter429s`). Not the feed's
        /// failure: it is asked when its host's wait is over.
        case hostThrottled
        /// libcurl refused a call setting up or running the transfer; the
        /// call and libcurl's message are in `curlError`.
        case curl
    }

    public enum Stage: String, Sendable {
        case request, connect, transfer, decode, file
    }

    public var code: Code
    public var url: String
    public var stage: Stage
    public var message: String
    /// The HTTP status, when there was one.
    public var status: Int?
    /// For 429 and 503: when to ask again, from `Retry-After`.
    public var retryAfter: RetryAfter?
    /// For `tooLarge`: a 2xx response with its body cut at the cap, from
    /// which the parser can still take the entries that arrived whole.
    public var partialResponse: FetchResponse?
    /// For `httpStatus`: the answer was a bot-protection challenge, with
    /// what showed it (`BotChallenge`); such a feed is blocked, not broken.
    public var botChallenge: String?
    /// For `curl`: the call that failed and what libcurl said.
    public var curlError: CurlError?

    public init(
        code: Code, url: String, stage: Stage, message: String, status: Int? = nil, retryAfter: RetryAfter? = nil
    ) {
        self.code = code
        self.url = url
        self.stage = stage
        self.message = message
        self.status = status
        self.retryAfter = retryAfter
    }

    /// Seconds to wait from now by the wall clock, for messages; what is
    /// stored comes from `retryAfter` and the run's time.
    public var retryAfterSeconds: Int? {
        retryAfter?.seconds(from: Timestamp(secondsSince1970: Int64(time(nil))))
    }

    public var description: String {
        var text = "\(url): \(message)"
        if let retryAfterSeconds { text += " (retry after \(retryAfterSeconds) s)" }
        return text
    }
}
