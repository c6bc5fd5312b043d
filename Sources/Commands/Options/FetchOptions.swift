import FeedFetch
import Foundation
import RequestSigning

/// The fetching options the main command and `feedmerge fetch` share,
/// declared once for any settings that hold a `FetchConfiguration`.
enum FetchOptions {
    /// A contact URL fit for a User-Agent: http or https, and nothing that
    /// would end the comment it is sent in or the header itself.
    static func contact(_ text: String) throws(UsageError) -> String {
        let lower = text.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://"), text.count <= 512,
            !text.unicodeScalars.contains(where: {
                $0.value <= 0x20 || $0.value >= 0x7F || "()\\".unicodeScalars.contains($0)
            })
        else {
            throw UsageError("--contact wants an http or https URL without spaces or parentheses, not \(text)")
        }
        return text
    }

    /// A host spacing: seconds from 0 to 3600, to the millisecond.
    static func spacing(_ text: String) throws(UsageError) -> Duration {
        guard let seconds = Double(text), seconds >= 0, seconds <= 3_600 else {
            throw UsageError("--host-spacing wants seconds from 0 to 3600, not \(text)")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    static func group<Settings>(
        _ configuration: WritableKeyPath<Settings, FetchConfiguration> & Sendable, maxBytesHelp: String
    ) -> OptionGroup<Settings> {
        func number(
            _ name: String, _ placeholder: String, _ help: String,
            _ field: WritableKeyPath<FetchConfiguration, Int> & Sendable, shown: @escaping @Sendable (Int) -> String
        ) -> Option<Settings> {
            Option(name, value: placeholder, help: help, default: { shown($0[keyPath: configuration][keyPath: field]) })
            {
                $0[keyPath: configuration][keyPath: field] = try OptionValue.positive($1, for: name)
            }
        }
        return OptionGroup(
            "Fetching",
            [
                number("--jobs", "N", "transfers at once", \.maximumConcurrentTransfers, shown: { "\($0)" }),
                Option(
                    "--per-host", value: "[HOST=]N",
                    help: "transfers at once per host; HOST=N for that host alone\n"
                        + "(repeatable; raise it only for hosts you run)",
                    default: { "\($0[keyPath: configuration].maximumTransfersPerHost)" }
                ) {
                    let (host, text) = try OptionValue.forHost($1, for: "--per-host", placeholder: "N")
                    let transfers = try OptionValue.positive(text, for: "--per-host")
                    if let host {
                        $0[keyPath: configuration].override(host: host, maximumTransfers: transfers)
                    } else {
                        $0[keyPath: configuration].maximumTransfersPerHost = transfers
                    }
                },
                Option(
                    "--host-spacing", value: "[HOST=]S",
                    help: "least seconds between two requests' starts on one host;\n"
                        + "HOST=S for that host alone (repeatable; 0 only for hosts\nyou run)",
                    default: { "\(Double($0[keyPath: configuration].minimumHostSpacing.components.seconds))" }
                ) {
                    let (host, text) = try OptionValue.forHost($1, for: "--host-spacing", placeholder: "S")
                    let spacing = try FetchOptions.spacing(text)
                    if let host {
                        $0[keyPath: configuration].override(host: host, minimumSpacing: spacing)
                    } else {
                        $0[keyPath: configuration].minimumHostSpacing = spacing
                    }
                },
                Option(
                    "--contact", value: "URL",
                    help: "a page saying who runs this and how to reach them, sent in\n"
                        + "the User-Agent as (+URL) (default: --link's address)"
                ) {
                    $0[keyPath: configuration].contactURL = try FetchOptions.contact($1)
                },
                number("--timeout", "S", "seconds per transfer", \.totalTimeoutSeconds, shown: { "\($0)" }),
                number("--max-bytes", "N", maxBytesHelp, \.maximumBodyBytes, shown: { "\($0 >> 20) MiB" }),
                Option(
                    "--public-only",
                    help:
                        "fetch only from globally reachable addresses (no loopback,\nprivate, link-local, ...); refused with a proxy set"
                ) { settings, _ in
                    if let proxy = ProxyEnvironment.active(in: ProcessInfo.processInfo.environment) {
                        throw UsageError(
                            "--public-only cannot check where requests go through the proxy in \(proxy.name) (\(proxy.value)): unset it, or set no_proxy='*'"
                        )
                    }
                    settings[keyPath: configuration].addressPolicy = .publicOnly
                },
                Option<Settings>(
                    "--sign-with", value: "KEYFILE",
                    help:
                        "sign each request with this Ed25519 key (Web Bot Auth; PEM or\nJWK; feedmerge key new makes one)"
                ) { (settings: inout Settings, path: String) throws in
                    do {
                        settings[keyPath: configuration].webBotAuth.key = try SigningKey(contentsOfFile: path)
                    } catch {
                        throw UsageError("--sign-with: \(error)")
                    }
                },
                Option<Settings>(
                    "--signature-agent", value: "URL",
                    help:
                        "the https site whose key directory lists that key, sent\nas Signature-Agent (feedmerge key directory writes it)"
                ) { (settings: inout Settings, url: String) throws in
                    do {
                        try settings[keyPath: configuration].webBotAuth.setSignatureAgent(url)
                    } catch {
                        throw UsageError("\(error)")
                    }
                },
            ])
    }

    /// What the options of one command line need together: a Signature-Agent names where the
    /// key of `--sign-with` is published, so it means nothing without one.
    static func check(_ configuration: FetchConfiguration) throws(UsageError) {
        if configuration.webBotAuth.signatureAgent != nil && configuration.webBotAuth.key == nil {
            throw UsageError("--signature-agent names where the signing key is published: add --sign-with KEYFILE")
        }
    }
}
