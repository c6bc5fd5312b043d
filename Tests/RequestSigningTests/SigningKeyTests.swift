import Foundation
import Testing

@testable import RequestSigning

/// Key files in and out: PEM (PKCS#8) and JWK, and what is refused.
@Suite struct SigningKeyTests {
    @Test func generatedKeyRoundTripsThroughPEM() throws {
        let key = try SigningKey.generate()
        let pem = try key.pem()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(pem.hasSuffix("-----END PRIVATE KEY-----\n"))
        let read = try SigningKey(reading: pem)
        #expect(read == key)
        #expect(read.publicKey.thumbprint == key.publicKey.thumbprint)
        #expect(try SigningKey.generate() != key, "two keys from the random source differ")
    }

    @Test func rfc9421PEMAndItsJWKAreOneKey() throws {
        let pem = try SigningKey(reading: PublishedVectorTests.rfc9421Private)
        let jwk = try SigningKey(
            reading: #"{"kty":"OKP","crv":"Ed25519","d":"n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU"}"#)
        #expect(pem == jwk)
    }

    @Test(arguments: [
        ("", "not a PEM private key"),
        ("{}", #"a JWK of "kty":"OKP" and "crv":"Ed25519" is needed"#),
        (#"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#, "no private key"),
        (#"{"kty":"OKP","crv":"Ed25519","d":"AAAA"}"#, "an Ed25519 key is 32 bytes, not 3"),
        (
            #"{"kty":"OKP","crv":"Ed25519","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs"}"#,
            "is not the public half"
        ),
        (
            // An X25519 key (RFC 8410's example): PKCS#8, but not for signing.
            "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VuBCIEINTuctv5E1hK1bbY8fdp+K06/nwoy/HU++CXqI9EdVhC\n-----END PRIVATE KEY-----\n",
            "not an Ed25519 key"
        ),
    ])
    func refusedKeysSayWhy(text: String, reason: String) {
        #expect {
            try SigningKey(reading: text)
        } throws: { error in
            (error as? SigningError)?.reason.contains(reason) == true
        }
    }

    @Test func aKeyFileThatIsMissingIsNamed() {
        #expect {
            try SigningKey(contentsOfFile: "/nonexistent/key.pem")
        } throws: { error in
            (error as? SigningError)?.operation == "reading /nonexistent/key.pem"
        }
    }

    @Test func descriptionNeverShowsThePrivateKey() throws {
        let key = try SigningKey(reading: PublishedVectorTests.rfc8037Private)
        #expect("\(key)" == "Ed25519 key kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k")
        #expect(String(reflecting: key) == "\(key)")
        var dumped = ""
        dump(key, to: &dumped)
        #expect(!dumped.contains("157"), "the seed's bytes (0x9d = 157 first) are not dumped: \(dumped)")
        #expect(dumped.contains("kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"))
    }
}
