import Basics
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
        /// What the block's addresses are, as a refusal names them ("a
        /// loopback address"): never the address itself, nor the block.
        public var kind: String

        /// Parses `10.0.0.0/8`, `fe80::/10`, or a single address.
        public init?(_ text: String, kind: String = "a non-global address") {
            self.kind = kind
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
        refusing: refusedBlocks.flatMap { kind, blocks in blocks.compactMap { Block($0, kind: kind) } },
        permitting: [
            // Port Control Protocol and TURN anycast; in 2001::/23: two anycast addresses, AMT,
            // AS112-v6, ORCHIDv2, drone remote ID.
            "192.0.0.9/32", "192.0.0.10/32", "2001:1::1/128", "2001:1::2/128", "2001:1::3/128", "2001:3::/32",
            "2001:4:112::/48", "2001:20::/28", "2001:30::/28",
        ].compactMap { Block($0) })

    /// The refused blocks by what their addresses are. IPv4: "this" network,
    /// private (RFC 1918), shared (carrier-grade NAT), loopback, link-local,
    /// IETF protocol assignments, documentation, the deprecated 6to4 relay
    /// anycast, benchmarking, multicast, reserved and limited broadcast.
    /// IPv6: unspecified, loopback and IPv4-compatible (::/96), local-use
    /// NAT64, discard-only, dummy prefix, IETF protocol assignments (Teredo,
    /// benchmarking, ORCHID among them), documentation (two), SRv6 SIDs,
    /// unique local, link-local, site-local, multicast.
    static let refusedBlocks: KeyValuePairs<String, [String]> = [
        "an unspecified address": ["0.0.0.0/8", "::/128"],
        "a loopback address": ["127.0.0.0/8", "::1/128"],
        "a private address": ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"],
        "a shared (carrier-grade NAT) address": ["100.64.0.0/10"],
        "a link-local address": ["169.254.0.0/16", "fe80::/10"],
        "a unique local address": ["fc00::/7"],
        "a site-local address": ["fec0::/10"],
        "an IETF protocol assignment": ["192.0.0.0/24", "2001::/23"],
        "a documentation address": ["192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "2001:db8::/32", "3fff::/20"],
        "a 6to4 relay anycast address": ["192.88.99.0/24"],
        "a benchmarking address": ["198.18.0.0/15"],
        "a multicast address": ["224.0.0.0/4", "ff00::/8"],
        "a reserved address": ["240.0.0.0/4"],
        "an IPv4-compatible IPv6 address": ["::/96"],
        "a local-use NAT64 address": ["64:ff9b:1::/48"],
        "a discard-only address": ["100::/64"],
        "a dummy address": ["100:0:0:1::/64"],
        "an SRv6 SID": ["5f00::/16"],
    ]

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
            return "the host names this machine (a loopback address), which the address policy refuses"
        }
        guard let address = IPAddress.literal(name) else { return nil }
        guard let block = refusingBlock(for: address) else { return nil }
        return Self.refusal(of: block, resolved: false)
    }

    /// A refusal in words that name only the kind of address (a list's
    /// editor reads them in `--health` and on the page): never the address
    /// a name resolved to, nor its block.
    /// - Parameter resolved: the address is one a name resolved to (not the URL's own literal).
    public static func refusal(of block: Block, resolved: Bool) -> String {
        "\(resolved ? "the server's address" : "the host") is \(block.kind), which the address policy refuses"
    }
}
