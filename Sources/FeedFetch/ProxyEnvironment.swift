/// The proxy libcurl would use for feeds, from the environment variables it
/// reads (`http_proxy`, `https_proxy`/`HTTPS_PROXY`, `all_proxy`/`ALL_PROXY`;
/// `no_proxy`/`NO_PROXY` of `*` turns them all off; uppercase `HTTP_PROXY`
/// is ignored, as libcurl ignores it).
///
/// Through a proxy the peer address is the proxy's: the address policy
/// cannot judge where a request goes, so `--public-only` refuses to run
/// with one instead of trusting or blocking every fetch.
public enum ProxyEnvironment {
    /// The variables that name a proxy, as this checks them.
    public static let proxies = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]
    /// The variables that list the hosts reached without a proxy.
    public static let exceptions = ["no_proxy", "NO_PROXY"]

    /// The first proxy variable that is set, and its value; nil when none applies.
    public static func active(in environment: [String: String]) -> (name: String, value: String)? {
        func value(_ name: String) -> String? {
            guard let value = environment[name], !value.isEmpty else { return nil }
            return value
        }
        if (value("no_proxy") ?? value("NO_PROXY")) == "*" { return nil }
        for name in proxies {
            if let found = value(name) { return (name, found) }
        }
        return nil
    }
}
