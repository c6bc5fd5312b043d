import Basics
import FeedModel
import FeedParse

/// Reading option values, each with the one-line error users see.
enum OptionValue {
    /// A whole number, 0 or more.
    static func count(_ text: String, for option: String) throws(UsageError) -> Int {
        guard let value = Int(text), value >= 0 else {
            throw UsageError("\(option) needs a whole number (0 or more), not '\(text)'")
        }
        return value
    }

    /// `HOST:PORT` (`[V6]:PORT`) for a listening socket.
    static func listenAddress(_ text: String, for option: String) throws(UsageError) -> String {
        do {
            _ = try ListeningSocket.split(text)
        } catch {
            throw UsageError("\(option) \(error)")
        }
        return text
    }

    /// A whole number, 1 or more.
    static func positive(_ text: String, for option: String) throws(UsageError) -> Int {
        guard let value = Int(text), value >= 1 else {
            throw UsageError("\(option) needs a whole number of at least 1, not '\(text)'")
        }
        return value
    }

    /// `HOST=VALUE`, a value for one host, or a bare `VALUE`, for every host
    /// (host nil). HOST is a name or an address with an optional `:PORT`
    /// (an IPv6 address in brackets), nothing else: no scheme, no path.
    static func forHost(
        _ text: String, for option: String, placeholder: String
    ) throws(UsageError) -> (host: String?, value: String) {
        guard let equals = text.firstIndex(of: "=") else { return (nil, text) }
        let host = String(text[..<equals])
        let value = String(text[text.index(after: equals)...])
        let form = "\(option) wants \(placeholder) or HOST=\(placeholder)"
        if host.isEmpty { throw UsageError("\(form), not '\(text)': no host before '='") }
        if host.contains("://") {
            let parts = URLAuthority.parts(of: host)
            let bare = parts.map { $0.port.isEmpty ? $0.host : "\($0.host):\($0.port)" } ?? "HOST"
            throw UsageError("\(form), not '\(text)': HOST is a host, not a URL (\(bare)=\(value))")
        }
        if host.contains(where: { "/?#\\".contains($0) }) {
            throw UsageError("\(form), not '\(text)': HOST is a host alone, without a path")
        }
        var name = Substring(host)
        var port: Substring?
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            name = host[...close]
            let rest = host[host.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw UsageError("\(form), not '\(text)': '\(rest)' after ']'") }
                port = rest.dropFirst()
            }
        } else if let colon = host.firstIndex(of: ":") {
            (name, port) = (host[..<colon], host[host.index(after: colon)...])
            if port?.contains(":") == true {
                throw UsageError("\(form), not '\(text)': an IPv6 address is written in brackets ([::1])")
            }
        }
        let bracketed = name.count > 2 && name.hasPrefix("[") && name.hasSuffix("]")
        let inside = bracketed ? name.dropFirst().dropLast() : name
        let allowed = bracketed ? "0123456789abcdef:." : "abcdefghijklmnopqrstuvwxyz0123456789-._"
        guard !inside.isEmpty, inside.lowercased().allSatisfy({ allowed.contains($0) || ($0.isLetter && !$0.isASCII) })
        else {
            throw UsageError("\(form), not '\(text)': '\(name)' is not a host name or address")
        }
        if let port {
            guard port.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(port), (1...65_535).contains(number)
            else { throw UsageError("\(form), not '\(text)': the port is a number from 1 to 65535") }
        }
        return (host, value)
    }

    /// One of a fixed set of words.
    static func choice<Value: RawRepresentable>(_ text: String, for option: String) throws(UsageError) -> Value
    where Value.RawValue == String, Value: CaseIterable {
        guard let value = Value(rawValue: text) else {
            let words = Value.allCases.map(\.rawValue).joined(separator: ", ")
            throw UsageError("\(option) is one of \(words), not '\(text)'")
        }
        return value
    }

    /// A date in any form feeds use (RFC 3339, RFC 822, ...).
    static func date(_ text: String, for option: String) throws(UsageError) -> Timestamp {
        guard let date = DateParser.parse(text) else { throw UsageError("\(option): cannot read the date '\(text)'") }
        return date
    }

    /// A date, or an age before `now`: `30d`, `12h`, `2w`, `90m`.
    static func dateOrAge(_ text: String, now: Timestamp, for option: String) throws(UsageError) -> Timestamp {
        if let unit = text.last, let amount = Int64(text.dropLast()), amount >= 0 {
            let seconds: Int64? =
                switch unit {
                case "m": 60
                case "h": 3600
                case "d": 86_400
                case "w": 604_800
                default: nil
                }
            if let seconds { return Timestamp(secondsSince1970: now.secondsSince1970 - amount * seconds) }
        }
        guard let date = DateParser.parse(text) else {
            throw UsageError("\(option): '\(text)' is neither a date nor an age (30d, 12h, 2w, 90m)")
        }
        return date
    }
}
