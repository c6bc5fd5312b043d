import Foundation

/// Web Bot Auth (draft-meunier-web-bot-auth-architecture): each request
/// signed with HTTP Message Signatures (RFC 9421) under an Ed25519 key,
/// tagged `web-bot-auth`, covering `@authority` and, when it is sent,
/// `Signature-Agent`, the site whose key directory
/// (`/.well-known/http-message-signatures-directory`) lists the key.
public struct WebBotAuth: Sendable, Equatable {
    public static let tag = "web-bot-auth"
    /// The signature's label in `Signature-Input` and `Signature`.
    static let label = "sig1"

    /// The key requests are signed with; nil signs nothing.
    public var key: SigningKey?
    /// Where verifiers find the key: the operator's site (`https://planet.example.org`).
    public private(set) var signatureAgent: String?
    /// Seconds from `created` to `expires`.
    public var lifetime = 300

    public init(key: SigningKey? = nil) {
        self.key = key
    }

    /// Sets `Signature-Agent` to `url`.
    /// - Throws: when `url` is not an absolute https URL, or holds what a
    ///   header's string cannot.
    public mutating func setSignatureAgent(_ url: String) throws(SigningError) {
        // A URL never holds a space, a quote or a backslash unescaped (RFC 3986).
        guard StructuredField.isPrintableASCII(url), !url.contains(where: { " \"\\".contains($0) }),
            let parts = URLComponents(string: url),
            let scheme = parts.scheme?.lowercased(), let host = parts.host, !host.isEmpty
        else { throw SigningError("--signature-agent \(url)", "not an absolute URL") }
        guard scheme == "https" else {
            throw SigningError(
                "--signature-agent \(url)", "verifiers fetch the key directory over https: give an https URL")
        }
        guard parts.user == nil, parts.password == nil, parts.fragment == nil else {
            throw SigningError("--signature-agent \(url)", "a URL with no user name, password or fragment is needed")
        }
        signatureAgent = url
    }

    /// The `Signature-Agent`, `Signature-Input` and `Signature` header lines
    /// (`Name: value`) for a request to `url` made at `now`; none without a
    /// key, or for a URL with no authority (a local file).
    public func headerLines(forRequestTo url: String, at now: Date) throws(SigningError) -> [String] {
        guard key != nil, let authority = RequestAuthority.of(url) else { return [] }
        let nonce = Base64URL.encode(Crypto.randomBytes(32))
        return try headers(authority: authority, created: Int(now.timeIntervalSince1970), nonce: nonce)
            .map { "\($0.name): \($0.value)" }
    }

    /// The headers for a request to `authority`, signed at `created`.
    public func headers(authority: String, created: Int, nonce: String?) throws(SigningError) -> [(
        name: String, value: String
    )] {
        guard let key else { return [] }
        var components = [SignatureParameters.Component("@authority")]
        var values = [authority]
        var headers: [(name: String, value: String)] = []
        if let signatureAgent {
            // The field's value as sent: the sf-string, quotes included (RFC 9421 section 2.1).
            let field = StructuredField.string(signatureAgent)
            headers.append(("Signature-Agent", field))
            components.append(SignatureParameters.Component("signature-agent"))
            values.append(field)
        }
        var parameters: [SignatureParameters.Parameter] = [
            .created(created), .expires(created + lifetime), .keyid(key.publicKey.thumbprint), .alg("ed25519"),
        ]
        if let nonce { parameters.append(.nonce(nonce)) }
        parameters.append(.tag(Self.tag))
        let signed = SignatureParameters(components: components, parameters: parameters)
        let signature = try key.sign(Array(signed.base(values: values).utf8))
        headers.append(("Signature-Input", "\(Self.label)=\(signed.serialized)"))
        headers.append(("Signature", "\(Self.label)=\(StructuredField.binary(signature))"))
        return headers
    }
}
