import Foundation
import Testing

@testable import RequestSigning

/// The headers of a signed request and of the key directory, byte for byte
/// for a fixed key, time and nonce (the verifier from PyPI checks real
/// requests in `AggregatorTests`' `SignedRequestTests`).
@Suite struct WebBotAuthHeaderTests {
    static func signer() throws -> WebBotAuth {
        var signer = WebBotAuth(key: try SigningKey(reading: PublishedVectorTests.rfc8037Private))
        try signer.setSignatureAgent("https://planet.example.org")
        return signer
    }

    @Test func requestHeadersCoverAuthorityAndSignatureAgent() throws {
        let signer = try Self.signer()
        let headers = try signer.headers(authority: "feeds.example.com", created: 1_700_000_000, nonce: "bm9uY2U")
        #expect(headers.map(\.name) == ["Signature-Agent", "Signature-Input", "Signature"])
        #expect(headers[0].value == #""https://planet.example.org""#)
        #expect(
            headers[1].value
                == #"sig1=("@authority" "signature-agent");created=1700000000;expires=1700000300;keyid="kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k";alg="ed25519";nonce="bm9uY2U";tag="web-bot-auth""#
        )
        // The signature is Ed25519 over the base RFC 9421 section 2.5 makes of those.
        let base = """
            "@authority": feeds.example.com
            "signature-agent": "https://planet.example.org"
            "@signature-params": \(headers[1].value.dropFirst("sig1=".count))
            """
        let key = try #require(signer.key)
        #expect(headers[2].value == "sig1=" + StructuredField.binary(try key.sign(Array(base.utf8))))
    }

    @Test func withoutSignatureAgentOnlyTheAuthorityIsCovered() throws {
        let signer = WebBotAuth(key: try SigningKey(reading: PublishedVectorTests.rfc8037Private))
        let headers = try signer.headers(authority: "a.example", created: 10, nonce: nil)
        #expect(headers.map(\.name) == ["Signature-Input", "Signature"])
        #expect(headers[0].value.hasPrefix(#"sig1=("@authority");created=10;expires=310;keyid=""#))
        #expect(headers[0].value.hasSuffix(#";alg="ed25519";tag="web-bot-auth""#))
    }

    @Test func noKeyNoHeaders() throws {
        #expect(try WebBotAuth().headerLines(forRequestTo: "https://a.example/feed", at: Date()).isEmpty)
        #expect(try Self.signer().headerLines(forRequestTo: "/home/me/feed.xml", at: Date()).isEmpty)
    }

    @Test func eachRequestHasItsOwnNonce() throws {
        let signer = try Self.signer()
        let now = Date()
        let first = try signer.headerLines(forRequestTo: "https://a.example/feed", at: now)
        let second = try signer.headerLines(forRequestTo: "https://a.example/feed", at: now)
        #expect(first[1].contains(";nonce=\""))
        #expect(first[1] != second[1])
    }

    @Test(arguments: [
        ("https://Feeds.Example.COM/feed.xml", "feeds.example.com"),
        ("https://feeds.example.com:443/feed", "feeds.example.com"),
        ("http://feeds.example.com:80/feed", "feeds.example.com"),
        ("http://127.0.0.1:8080/feed", "127.0.0.1:8080"),
        ("https://user:secret@feeds.example.com:8443/f?q=1", "feeds.example.com:8443"),
        ("http://[::1]:8080/feed", "[::1]:8080"),
    ])
    func authorityIsHostAndNonDefaultPort(url: String, authority: String) {
        #expect(RequestAuthority.of(url) == authority)
    }

    @Test(arguments: [
        "http://planet.example.org", "planet.example.org", "https://", "https://planet.example.org/\u{7F}",
        "https://me:pw@planet.example.org", "https://planet.example.org/\"x",
    ])
    func signatureAgentMustBeAPlainHTTPSURL(url: String) {
        var signer = WebBotAuth()
        #expect(throws: SigningError.self) { try signer.setSignatureAgent(url) }
    }

    @Test func directoryListsEachKeyAndIsSignedByEach() throws {
        let first = try SigningKey(reading: PublishedVectorTests.rfc8037Private)
        let second = try SigningKey(reading: PublishedVectorTests.rfc9421Private)
        let directory = KeyDirectory(keys: [first, second])
        #expect(
            directory.json
                == #"{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},"#
                + #"{"kty":"OKP","crv":"Ed25519","kid":"\#(second.publicKey.thumbprint)","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs"}]}"#
                + "\n")
        let headers = try directory.responseHeaders(authority: "planet.example.org", created: 100, lifetime: 50)
        #expect(headers.map(\.name) == ["Content-Type", "Signature-Input", "Signature"])
        #expect(headers[0].value == "application/http-message-signatures-directory+json")
        #expect(
            headers[1].value
                == #"sig1=("@authority";req);created=100;expires=150;keyid="kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k";alg="ed25519";tag="http-message-signatures-directory", "#
                + #"sig2=("@authority";req);created=100;expires=150;keyid="\#(second.publicKey.thumbprint)";alg="ed25519";tag="http-message-signatures-directory""#
        )
        let base = """
            "@authority";req: planet.example.org
            "@signature-params": ("@authority";req);created=100;expires=150;keyid="kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k";alg="ed25519";tag="http-message-signatures-directory"
            """
        #expect(
            headers[2].value.hasPrefix("sig1=" + StructuredField.binary(try first.sign(Array(base.utf8))) + ", sig2=:"))
    }
}
