import Foundation

/// An Ed25519 public key as a JSON Web Key (RFC 8037 section 2: `kty`
/// "OKP", `crv` "Ed25519", `x` the 32 public bytes in base64url), the form
/// a key directory lists.
public struct JSONWebKey: Sendable, Equatable {
    /// The 32 bytes of RFC 8032's public key encoding.
    public var publicKey: [UInt8]

    public init(publicKey: [UInt8]) {
        self.publicKey = publicKey
    }

    /// `x`.
    public var x: String { Base64URL.encode(publicKey) }

    /// RFC 7638's JWK thumbprint with SHA-256, base64url: the hash of the
    /// required members in lexicographic order with no whitespace
    /// (`{"crv":"Ed25519","kty":"OKP","x":"..."}`, RFC 8037 appendix A.3).
    /// Web Bot Auth's `keyid`.
    public var thumbprint: String {
        let canonical = #"{"crv":"Ed25519","kty":"OKP","x":"\#(x)"}"#
        return Base64URL.encode(Crypto.sha256(Array(canonical.utf8)))
    }

    /// The key as a directory lists it: its members and `kid`, the thumbprint.
    /// Every value is base64url or a fixed word, so none needs escaping.
    public var json: String {
        #"{"kty":"OKP","crv":"Ed25519","kid":"\#(thumbprint)","x":"\#(x)"}"#
    }
}
