/// The key directory a site publishes for its signing keys
/// (draft-meunier-http-message-signatures-directory): a JWK set served at
/// `/.well-known/http-message-signatures-directory` as
/// `application/http-message-signatures-directory+json`, its response
/// signed by every key it lists (tag `http-message-signatures-directory`,
/// covering the request's `@authority`), so that a verifier knows the
/// directory's site holds each key.
public struct KeyDirectory: Sendable {
    public static let path = "/.well-known/http-message-signatures-directory"
    public static let mediaType = "application/http-message-signatures-directory+json"
    public static let tag = "http-message-signatures-directory"

    public var keys: [SigningKey]

    public init(keys: [SigningKey]) {
        self.keys = keys
    }

    /// `{"keys":[...]}`, one public JWK per key, with a line break at the end.
    public var json: String {
        "{\"keys\":[" + keys.map(\.publicKey.json).joined(separator: ",") + "]}\n"
    }

    /// The headers its response is served with, at `authority` (the
    /// Signature-Agent's host), valid from `created` for `lifetime` seconds:
    /// `Content-Type`, then `Signature-Input` and `Signature` with one
    /// member per key (`sig1`, `sig2`, ...).
    public func responseHeaders(authority: String, created: Int, lifetime: Int) throws(SigningError) -> [(
        name: String, value: String
    )] {
        var inputs: [String] = []
        var signatures: [String] = []
        for (index, key) in keys.enumerated() {
            let signed = SignatureParameters(
                components: [SignatureParameters.Component("@authority", request: true)],
                parameters: [
                    .created(created), .expires(created + lifetime), .keyid(key.publicKey.thumbprint),
                    .alg("ed25519"), .tag(Self.tag),
                ])
            let signature = try key.sign(Array(signed.base(values: [authority]).utf8))
            inputs.append("sig\(index + 1)=\(signed.serialized)")
            signatures.append("sig\(index + 1)=\(StructuredField.binary(signature))")
        }
        return [
            ("Content-Type", Self.mediaType),
            ("Signature-Input", inputs.joined(separator: ", ")),
            ("Signature", signatures.joined(separator: ", ")),
        ]
    }
}
