import Glibc

/// Which peer addresses a transfer may connect to.
///
/// Checked twice: on the URL's host before a request is made (an address
/// literal in any spelling, or a `localhost` name, is refused before
/// anything leaves), and in libcurl's open-socket callback, for every
/// connection a transfer makes, after DNS: redirects and DNS rebinding
/// cannot slip past. The longest matching block decides, so a reachable
/// block inside a refused one (`192.0.0.9/32` in `192.0.0.0/24`) can be
/// permitted; an IPv6 address that carries an IPv4 address (mapped,
/// compatible, NAT64, 6to4, Teredo) is also judged by that address.
public struct AddressPolicy: Sendable, Hashable {
    /// An address block, IPv4 (4 bytes) or IPv6 (16 bytes), and its prefix length.
    public struct Block: Sendable, Hashable, CustomStringConvertible {
        public var bytes: [UInt8]
        public var prefixLength: Int

        /// Parses `10.0.0.0/8`, `fe80::/10`, or a single address.
        public init?(_ text: String) {
            let parts = text.split(separator: "/", maxSplits: 1)
            guard let address = IPAddress.parse(String(parts[0])) else { return nil }
            bytes = address
            if parts.count == 2 {
                guard let length = Int(parts[1]), length >= 0, length <= address.count * 8 else { return nil }
                prefixLength = length
            } else {
                prefixLength = address.count * 8
            }
        }

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var remaining = prefixLength
            for index in bytes.indices where remaining > 0 {
                let bits = min(8, remaining)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                if address[index] & mask != bytes[index] & mask { return false }
                remaining -= bits
            }
            return true
        }

        public var description: String { "\(IPAddress.format(bytes))/\(prefixLength)" }
    }

    public var refused: [Block]
    /// Blocks inside refused ones that are reachable after all.
    public var permitted: [Block]

    public init(refusing refused: [Block], permitting permitted: [Block] = []) {
        self.refused = refused
        self.permitted = permitted
    }

    public static let allowAll = AddressPolicy(refusing: [])

    /// Every block of IANA's IPv4 and IPv6 special-purpose address
    /// registries that is not globally reachable, plus multicast and the
    /// deprecated site-local and IPv4-compatible IPv6 forms; the registries'
    /// globally reachable blocks inside those are permitted.
    public static let publicOnly = AddressPolicy(
        refusing: [
            // IPv4: "this" network, private (RFC 1918), shared (carrier-grade NAT), loopback,
            // link-local, IETF protocol assignments, documentation, the deprecated 6to4 relay
            // anycast, benchmarking, multicast, reserved and limited broadcast.
            "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
            "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15",
            "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
            // IPv6: unspecified, loopback and IPv4-compatible (::/96), local-use NAT64, discard-only,
            // dummy prefix, IETF protocol assignments (Teredo, benchmarking, ORCHID among them),
            // documentation (two), SRv6 SIDs, unique local, link-local, site-local, multicast.
            "::/96", "64:ff9b:1::/48", "100::/64", "100:0:0:1::/64", "2001::/23", "2001:db8::/32", "3fff::/20",
            "5f00::/16", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8",
        ].compactMap(Block.init),
        permitting: [
            // Port Control Protocol and TURN anycast; in 2001::/23: two anycast addresses, AMT,
            // AS112-v6, ORCHIDv2, drone remote ID.
            "192.0.0.9/32", "192.0.0.10/32", "2001:1::1/128", "2001:1::2/128", "2001:1::3/128", "2001:3::/32",
            "2001:4:112::/48", "2001:20::/28", "2001:30::/28",
        ].compactMap(Block.init))

    /// The block that refuses an address, if any: the address's own block,
    /// else that of an IPv4 address it carries.
    public func refusingBlock(for address: [UInt8]) -> Block? {
        if let block = ownRefusal(of: address) { return block }
        for embedded in IPAddress.embeddedIPv4(in: address) {
            if let block = ownRefusal(of: embedded) { return block }
        }
        return nil
    }

    /// The longest block that holds `address` decides.
    private func ownRefusal(of address: [UInt8]) -> Block? {
        let refusal = refused.filter { $0.contains(address) }.max { $0.prefixLength < $1.prefixLength }
        guard let refusal else { return nil }
        let permission = permitted.filter { $0.contains(address) }.max { $0.prefixLength < $1.prefixLength }
        if let permission, permission.prefixLength > refusal.prefixLength { return nil }
        return refusal
    }

    /// Why a URL's host is refused before any request is made: an address
    /// literal (IPv4 in any spelling `inet_aton` and URL parsers accept:
    /// `127.1`, `0x7f000001`, `2130706433`, `0177.0.0.1`; IPv6 in brackets)
    /// in a refused block, or a name that means this machine (`localhost`,
    /// `*.localhost`, with or without the final dot). Nil for other names,
    /// which are judged on the addresses DNS gives, at connect time.
    public func refusal(forHost host: String) -> String? {
        guard !refused.isEmpty else { return nil }
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        if name == "localhost" || name.hasSuffix(".localhost") {
            return "\(host) names this machine (loopback), which the address policy refuses"
        }
        guard let address = IPAddress.literal(name) else { return nil }
        guard let block = refusingBlock(for: address) else { return nil }
        return "\(IPAddress.format(address)) is in \(block), which the address policy refuses"
    }
}

/// Text forms of IPv4 and IPv6 addresses, without the resolver.
enum IPAddress {
    /// An address a URL's host spells directly: `[v6]` (a zone dropped), or
    /// IPv4 in `inet_aton`'s forms (one to four parts, each decimal, octal
    /// with a leading 0, or hex with 0x), which URL parsers also accept.
    static func literal(_ host: String) -> [UInt8]? {
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
    static func embeddedIPv4(in address: [UInt8]) -> [[UInt8]] {
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

    static func parse(_ text: String) -> [UInt8]? {
        text.contains(":") ? parseIPv6(text) : parseIPv4(text)
    }

    static func parseIPv4(_ text: String) -> [UInt8]? {
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
    static func parseIPv6(_ text: String) -> [UInt8]? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: address) { Array($0) }
    }

    /// IPv4 dotted, IPv6 as `inet_ntop` writes it (`::1`, `::ffff:127.0.0.1`).
    static func format(_ bytes: [UInt8]) -> String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written = bytes.withUnsafeBytes { inet_ntop(AF_INET6, $0.baseAddress, &text, socklen_t(text.count)) }
        guard written != nil else { return bytes.map { String($0, radix: 16) }.joined(separator: ".") }
        return String(cString: text)
    }
}
