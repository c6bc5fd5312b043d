import FeedFetch

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
            Option(name, value: placeholder, help: help, default: { shown($0[keyPath: configuration][keyPath: field]) }) {
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
                Option("--public-only", help: "refuse loopback, private and link-local addresses") { settings, _ in
                    settings[keyPath: configuration].addressPolicy = .publicOnly
                },
            ])
    }
}
