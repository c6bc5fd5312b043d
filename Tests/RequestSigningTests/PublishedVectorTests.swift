import Foundation
import Testing

@testable import RequestSigning

/// The published examples are the oracles: RFC 8037's Ed25519 JWK and its
/// thumbprint, RFC 8037's JWS signature, RFC 9421's Ed25519 request signature.
@Suite struct PublishedVectorTests {
    /// RFC 8037 appendix A.1: the private key's `d` and the public key's `x`.
    static let rfc8037Private =
        #"{"kty":"OKP","crv":"Ed25519","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#

    /// RFC 9421 appendix B.1.4: test-key-ed25519.
    static let rfc9421Private = """
        -----BEGIN PRIVATE KEY-----
        MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF
        -----END PRIVATE KEY-----
        """

    @Test func rfc8037KeyGivesItsPublicKeyAndThumbprint() throws {
        let key = try SigningKey(reading: Self.rfc8037Private)
        #expect(key.publicKey.x == "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", "A.2: the public key")
        #expect(key.publicKey.thumbprint == "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k", "A.3: the thumbprint")
    }

    /// RFC 8037 appendix A.4: the JWS signing input `{"alg":"EdDSA"}` . "Example of Ed25519 signing".
    @Test func rfc8037SignatureIsReproduced() throws {
        let key = try SigningKey(reading: Self.rfc8037Private)
        let input = "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc"
        let signature = try key.sign(Array(input.utf8))
        #expect(
            Base64URL.encode(signature)
                == "hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg")
    }

    /// RFC 9421 appendix B.2.6: the signature base of the test request and its signature (Ed25519 is
    /// deterministic, so the bytes must be the RFC's).
    @Test func rfc9421Ed25519RequestSignatureIsReproduced() throws {
        let key = try SigningKey(reading: Self.rfc9421Private)
        #expect(key.publicKey.x == "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs", "B.1.4: the public key")
        let parameters = SignatureParameters(
            components: ["date", "@method", "@path", "@authority", "content-type", "content-length"].map {
                SignatureParameters.Component($0)
            },
            parameters: [.created(1_618_884_473), .keyid("test-key-ed25519")])
        let base = parameters.base(values: [
            "Tue, 20 Apr 2021 02:07:55 GMT", "POST", "/foo", "example.com", "application/json", "18",
        ])
        #expect(
            base == """
                "date": Tue, 20 Apr 2021 02:07:55 GMT
                "@method": POST
                "@path": /foo
                "@authority": example.com
                "content-type": application/json
                "content-length": 18
                "@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"
                """)
        #expect(
            "sig-b26=" + parameters.serialized
                == #"sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519""#
        )
        let signature = try key.sign(Array(base.utf8))
        #expect(
            StructuredField.binary(signature)
                == ":wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:")
    }
}
