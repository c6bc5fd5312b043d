import Basics
import Foundation
import Testing

@testable import FeedFetch

/// `--public-only`: every block of IANA's special-purpose registries that is
/// not globally reachable, the IPv4 addresses IPv6 forms carry, and the
/// spellings a URL's host can have.
@Suite struct AddressPolicyTests {
    let policy = AddressPolicy.publicOnly

    func refused(_ text: String) throws -> Bool {
        let address = try #require(IPAddress.parse(text), "\(text) does not parse")
        return policy.refusingBlock(for: address) != nil
    }

    static let notGlobal = [
        // IPv4 special-purpose blocks, first and last address of some.
        "0.0.0.0", "0.255.255.255", "10.0.0.1", "100.64.0.1", "100.127.255.255", "127.0.0.1", "127.255.255.254",
        "169.254.169.254", "172.16.0.1", "172.31.255.255", "192.0.0.1", "192.0.0.170", "192.0.2.1", "192.88.99.1",
        "192.168.1.1", "198.18.0.1", "198.19.255.255", "198.51.100.7", "203.0.113.9", "224.0.0.1", "239.255.255.250",
        "240.0.0.1", "255.255.255.255",
        // IPv6 special-purpose blocks.
        "::", "::1", "64:ff9b:1::1", "100::1", "100:0:0:1::1", "2001::1", "2001:2::1", "2001:10::1", "2001:db8::1",
        "3fff::1", "5f00::1", "fc00::1", "fd12:3456::1", "fe80::1", "fec0::1", "ff02::1",
        // IPv6 forms that carry a refused IPv4 address: mapped, compatible, translated, NAT64, 6to4, Teredo.
        "::ffff:127.0.0.1", "::ffff:169.254.169.254", "::10.0.0.1", "::ffff:0:192.168.0.1",
        "64:ff9b::a9fe:a9fe", "64:ff9b::7f00:1", "2002:7f00:1::", "2002:a9fe:a9fe::1", "2002:c0a8:101::",
        "2001:0:7f00:1::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2",
    ]

    static let global = [
        "8.8.8.8", "1.1.1.1", "93.184.216.34", "100.63.255.255", "100.128.0.0", "172.15.255.255", "172.32.0.0",
        "192.0.0.9", "192.0.0.10", "192.0.3.1", "192.169.0.1", "198.17.255.255", "198.20.0.0", "223.255.255.255",
        "2606:4700::1111", "2a00:1450:4001:80b::200e", "2001:4860:4860::8888", "2001:1::1", "2001:3::1",
        "2001:4:112::1", "2001:20::1", "2620:4f:8000::1",
        // IPv6 forms whose IPv4 address is public.
        "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1",
    ]

    @Test(arguments: notGlobal)
    func refusesWhatIsNotGloballyReachable(address: String) throws {
        #expect(try refused(address), "\(address) is let through")
    }

    @Test(arguments: global)
    func letsGloballyReachableAddressesThrough(address: String) throws {
        #expect(try refused(address) == false, "\(address) is refused")
    }

    @Test func theLongestBlockDecides() throws {
        // 192.0.0.9/32 (Port Control Protocol anycast) is reachable inside the refused 192.0.0.0/24.
        #expect(try refused("192.0.0.9") == false && refused("192.0.0.8"))
        #expect(AddressPolicy.allowAll.refusingBlock(for: [127, 0, 0, 1]) == nil)
    }

    @Test func hostsAreJudgedAsURLsSpellThem() {
        for host in [
            "127.1", "0x7f000001", "2130706433", "0177.0.0.1", "0.0.0.0", "[::1]", "[::ffff:127.0.0.1]", "localhost.",
            "localhost", "LocalHost", "www.localhost", "0x7F.0.0.1", "[fe80::1%25eth0]", "[::ffff:a9fe:a9fe]",
            "10.1", "169.254.43518",
        ] {
            #expect(policy.refusal(forHost: host) != nil, "\(host) is let through")
        }
        for host in ["example.org", "8.8.8.8", "[2606:4700::1111]", "cafe.example", "0x8.8.8.8", "1e100.net"] {
            #expect(policy.refusal(forHost: host) == nil, "\(host) is refused")
        }
        #expect(policy.refusal(forHost: "127.1") == "the host is a loopback address, which the address policy refuses")
        #expect(AddressPolicy.allowAll.refusal(forHost: "127.0.0.1") == nil)
    }

    /// A refusal names the kind of address only: a list's editor reads it
    /// (in `--health`, on the page), and must not learn what an internal
    /// name resolves to, nor which block holds it.
    @Test(arguments: [
        ("127.0.0.1", "a loopback address"), ("::1", "a loopback address"),
        ("::ffff:127.0.0.1", "a loopback address"), ("10.20.30.40", "a private address"),
        ("172.16.5.4", "a private address"), ("192.168.1.1", "a private address"),
        ("169.254.169.254", "a link-local address"), ("fe80::1", "a link-local address"),
        ("fd12:3456::1", "a unique local address"), ("100.64.0.1", "a shared (carrier-grade NAT) address"),
        ("0.0.0.0", "an unspecified address"), ("::", "an unspecified address"),
        ("192.0.2.1", "a documentation address"), ("224.0.0.1", "a multicast address"),
        ("255.255.255.255", "a reserved address"), ("2002:a9fe:a9fe::1", "a link-local address"),
    ])
    func aRefusalSaysTheKindOfAddressNeverTheAddress(address: String, kind: String) throws {
        let bytes = try #require(IPAddress.parse(address))
        let block = try #require(policy.refusingBlock(for: bytes))
        #expect(block.kind == kind)
        for resolved in [false, true] {
            let text = AddressPolicy.refusal(of: block, resolved: resolved)
            #expect(text.contains(kind))
            #expect(!text.contains(IPAddress.format(bytes)) && !text.contains("/"), "\(text)")
            #expect(text.allSatisfy { !$0.isNumber } || kind.contains("6to4"), "\(text)")
        }
        let literal = bytes.count == 16 ? "[\(address)]" : address
        #expect(policy.refusal(forHost: literal) == "the host is \(kind), which the address policy refuses")
    }

    @Test func aURLsHostIsFoundPastItsUserAndPort() {
        #expect(HTTPClient.host(of: "http://user:pw@127.1:80/x") == "127.1")
        #expect(HTTPClient.host(of: "https://[::1]:8443/feed") == "[::1]")
        #expect(HTTPClient.host(of: "http://%6c%6fcalhost/") == "localhost")
        #expect(HTTPClient.host(of: "http://a.example?x=@127.0.0.1") == "a.example")
    }

    @Test func aProxyIsWhateverLibcurlWouldUse() {
        #expect(ProxyEnvironment.active(in: [:]) == nil)
        #expect(ProxyEnvironment.active(in: ["HTTP_PROXY": "http://p:3128"]) == nil)  // libcurl ignores it
        #expect(ProxyEnvironment.active(in: ["http_proxy": "http://p:3128"])?.name == "http_proxy")
        #expect(ProxyEnvironment.active(in: ["ALL_PROXY": "socks5://p"])?.name == "ALL_PROXY")
        #expect(ProxyEnvironment.active(in: ["https_proxy": "http://p", "no_proxy": "*"]) == nil)
        #expect(ProxyEnvironment.active(in: ["https_proxy": "http://p", "no_proxy": "example.org"]) != nil)
    }
}
