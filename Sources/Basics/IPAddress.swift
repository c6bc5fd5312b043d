import Glibc

/// Text forms of IPv4 and IPv6 addresses, without the resolver.
public enum IPAddress {
    /// An address a URL's host spells directly: `[v6]` (a zone dropped), or
    /// IPv4 in `inet_aton`'s forms (one to four parts, each decimal, octal
    /// with a leading 0, or hex with 0x), which URL parsers also accept.
    public static func literal(_ host: String) -> [UInt8]? {
        if host.hasPrefix("[") && host.hasSuffix("]") {
            var inner = String(host.dropFirst().dropLast())
            if let zone = inner.firstIndex(of: "%") { inner = String(inner[..<zone]) }
            return parseIPv6(inner)
        }
        guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0 == "." || $0 == "x") }) else {
            return nil
        }
        var address = in_addr()
        guard inet_aton(host, &address) != 0 else { return nil }
        return withUnsafeBytes(of: address) { Array($0) }
    }

    /// The IPv4 addresses an IPv6 address carries: IPv4-mapped
    /// (`::ffff:0:0/96`), IPv4-compatible (`::/96`), IPv4-translated
    /// (`::ffff:0:0:0/96`), NAT64 (`64:ff9b::/96`), 6to4 (`2002::/16`, bits
    /// 16–47) and Teredo (`2001::/32`: the server in bits 32–63, the client
    /// inverted in the last 32).
    public static func embeddedIPv4(in address: [UInt8]) -> [[UInt8]] {
        guard address.count == 16 else { return [] }
        let last = Array(address[12..<16])
        let zeroPrefix = address[0..<10].allSatisfy { $0 == 0 }
        if zeroPrefix && address[10] == 0xFF && address[11] == 0xFF { return [last] }
        if zeroPrefix && address[10] == 0 && address[11] == 0 { return [last] }
        if address[0..<8].allSatisfy({ $0 == 0 }) && address[8] == 0xFF && address[9] == 0xFF
            && address[10] == 0 && address[11] == 0
        {
            return [last]
        }
        if address[0..<12] == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] { return [last] }
        if address[0] == 0x20 && address[1] == 0x02 { return [Array(address[2..<6])] }
        if address[0..<4] == [0x20, 0x01, 0x00, 0x00] { return [Array(address[4..<8]), last.map { ~$0 }] }
        return []
    }

    public static func parse(_ text: String) -> [UInt8]? {
        text.contains(":") ? parseIPv6(text) : parseIPv4(text)
    }

    public static func parseIPv4(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard let value = UInt8(part) else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    /// Every IPv6 text form `inet_pton` reads, a dotted IPv4 tail among them.
    public static func parseIPv6(_ text: String) -> [UInt8]? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: address) { Array($0) }
    }

    /// IPv4 dotted, IPv6 as `inet_ntop` writes it (`::1`, `::ffff:127.0.0.1`).
    public static func format(_ bytes: [UInt8]) -> String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written = bytes.withUnsafeBytes { inet_ntop(AF_INET6, $0.baseAddress, &text, socklen_t(text.count)) }
        guard written != nil else { return bytes.map { String($0, radix: 16) }.joined(separator: ".") }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
