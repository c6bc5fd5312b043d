import Foundation

/// A request's `@authority` (RFC 9421 section 2.2.3): the target URI's host,
/// lowercased, with its port unless it is the scheme's default; no user
/// information. What a signature binds a request to.
public enum RequestAuthority {
    /// nil when `url` is not an absolute http or https URL with a host.
    public static func of(_ url: String) -> String? {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
            scheme == "http" || scheme == "https", var host = parts.host?.lowercased(), !host.isEmpty
        else { return nil }
        if host.contains(":") && !host.hasPrefix("[") { host = "[" + host + "]" }
        let standardPort = scheme == "https" ? 443 : 80
        if let port = parts.port, port != standardPort { return "\(host):\(port)" }
        return host
    }
}
