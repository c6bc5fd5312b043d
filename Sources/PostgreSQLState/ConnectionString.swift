import Foundation

/// A libpq connection string's password kept out of every message.
///
/// libpq quotes what it cannot parse (`invalid percent-encoded token:
/// "PW%ZZ"`, a whole URI with an unclosed `[`), and a message may quote the
/// string itself: each message that may hold either goes through
/// `redact(_:secretsOf:)`, which removes the password wherever it appears
/// (as written, and percent-decoded), then any `scheme://user:PASSWORD@` and
/// `password=VALUE` left, whatever their password.
public enum ConnectionString {
    /// The string with its password written `***`.
    public static func redacted(_ conninfo: String) -> String {
        redact(conninfo, secretsOf: conninfo)
    }

    /// `text` with every password `conninfo` holds, and every password a
    /// connection string in it holds, written `***`.
    public static func redact(_ text: String, secretsOf conninfo: String) -> String {
        var result = text
        // Longest first: a password that holds another is replaced whole.
        for secret in secrets(in: conninfo).sorted(by: { $0.count > $1.count }) where !secret.isEmpty {
            result = result.replacingOccurrences(of: secret, with: "***")
        }
        for (pattern, template) in patterns {
            let range = NSRange(result.startIndex..., in: result)
            result = pattern.stringByReplacingMatches(in: result, range: range, withTemplate: template)
        }
        return result
    }

    /// The passwords a connection string holds: a URI's user information
    /// after its `:`, a `password` query parameter, a `password=` keyword
    /// (quoted or not); each also percent-decoded.
    static func secrets(in conninfo: String) -> [String] {
        var found: [String] = []
        if let scheme = conninfo.range(of: "://") {
            let rest = conninfo[scheme.upperBound...]
            if let at = rest.firstIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") {
                found.append(String(rest[rest.index(after: colon)..<at]))
            }
        }
        let text = conninfo as NSString
        for pattern in [keyword, queryParameter] {
            for match in pattern.matches(in: conninfo, range: NSRange(location: 0, length: text.length)) {
                var value = text.substring(with: match.range(at: 1))
                if value.hasPrefix("'") {
                    value.removeFirst()
                    if value.hasSuffix("'") { value.removeLast() }
                    found.append(value.replacingOccurrences(of: "\\'", with: "'"))
                }
                found.append(value)
            }
        }
        return found + found.compactMap { $0.removingPercentEncoding }
    }

    // The patterns are constants: `try!` cannot fail on them.
    // swift-format-ignore: NeverUseForceTry
    private static let keyword = try! NSRegularExpression(
        pattern: #"(?:^|\s)password\s*=\s*('(?:[^'\\]|\\.)*'?|\S*)"#, options: [.caseInsensitive])
    // swift-format-ignore: NeverUseForceTry
    private static let queryParameter = try! NSRegularExpression(
        pattern: #"[?&]password=([^&\s"]*)"#, options: [.caseInsensitive])

    /// What is left after the known passwords are gone: any URI's password,
    /// any `password=` keyword's or parameter's value.
    // swift-format-ignore: NeverUseForceTry
    private static let patterns: [(NSRegularExpression, String)] = [
        (try! NSRegularExpression(pattern: #"(://[^:/@\s"]*:)[^@\s"]*@"#), "$1***@"),
        (
            try! NSRegularExpression(
                pattern: #"(password\s*=\s*)(?!\*\*\*)('(?:[^'\\]|\\.)*'?|[^\s&"]+)"#, options: [.caseInsensitive]),
            "$1***"
        ),
    ]
}
