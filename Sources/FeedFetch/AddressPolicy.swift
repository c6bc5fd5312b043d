/// Which peer addresses a transfer may connect to.
///
/// Checked in libcurl's open-socket callback, that is for every connection
/// a transfer makes, after DNS: redirects and DNS rebinding cannot slip past.
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

    public init(refusing refused: [Block]) { self.refused = refused }

    public static let allowAll = AddressPolicy(refusing: [])

    /// Everything that is not the public internet: loopback, private
    /// (RFC 1918, unique local), link-local, carrier-grade NAT, "this"
    /// network, multicast, reserved, documentation and benchmarking blocks.
    public static let publicOnly = AddressPolicy(
        refusing: [
            "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
            "192.0.0.0/24", "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24",
            "224.0.0.0/4", "240.0.0.0/4", "::/128", "::1/128", "64:ff9b:1::/48", "100::/64", "2001:db8::/32",
            "fc00::/7", "fe80::/10", "ff00::/8",
        ].compactMap(Block.init))

    /// The block that refuses an address, if any. An IPv4-mapped IPv6
    /// address (`::ffff:127.0.0.1`) is judged as the IPv4 address it maps.
    public func refusingBlock(for address: [UInt8]) -> Block? {
        var candidate = address
        if address.count == 16, address[0..<10].allSatisfy({ $0 == 0 }), address[10] == 0xFF, address[11] == 0xFF {
            candidate = Array(address[12...])
        }
        return refused.first { $0.contains(candidate) }
    }
}

/// Text forms of IPv4 and IPv6 addresses, without the resolver.
enum IPAddress {
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

    static func parseIPv6(_ text: String) -> [UInt8]? {
        let halves = text.components(separatedByString: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt16]? {
            if part.isEmpty { return [] }
            var result: [UInt16] = []
            for group in part.split(separator: ":", omittingEmptySubsequences: false) {
                guard let value = UInt16(group, radix: 16), group.count <= 4 else { return nil }
                result.append(value)
            }
            return result
        }
        guard let head = groups(halves[0]) else { return nil }
        var all = head
        if halves.count == 2 {
            guard let tail = groups(halves[1]), head.count + tail.count < 8 else { return nil }
            all += Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        }
        guard all.count == 8 else { return nil }
        return all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    static func format(_ bytes: [UInt8]) -> String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: bytes.count, by: 2).map {
            String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16)
        }.joined(separator: ":")
    }
}

extension String {
    /// Splits on a multi-character separator (no Foundation needed).
    func components(separatedByString separator: String) -> [String] {
        var result: [String] = []
        var rest = Substring(self)
        while let range = rest.firstRange(of: separator) {
            result.append(String(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
        }
        result.append(String(rest))
        return result
    }
}
