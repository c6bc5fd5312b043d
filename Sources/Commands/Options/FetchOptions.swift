import FeedFetch
import Foundation
import RequestSigning

/// The fetching options the main command and `feedmerge fetch` share,
/// declared once for any settings that hold a `FetchConfiguration`.
enum FetchOptions {
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
                number("--per-host", "N", "transfers at once per host", \.maximumTransfersPerHost, shown: { "\($0)" }),
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
