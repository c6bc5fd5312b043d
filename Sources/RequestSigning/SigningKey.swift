import Foundation

/// An Ed25519 private key: what `--sign-with` names and `feedmerge key new`
/// writes. A plain value (the 32-byte seed and the public key it gives);
/// OpenSSL holds it only while one operation runs.
public struct SigningKey: Sendable, Equatable {
    /// RFC 8032's 32-byte private key.
    let seed: [UInt8]
    /// The public key, as a JWK.
    public let publicKey: JSONWebKey

    /// The key whose private half is `seed` (32 bytes).
    public init(seed: [UInt8]) throws(SigningError) {
        let key = try OpenSSLKey(seed: seed)
        self.seed = seed
        publicKey = JSONWebKey(publicKey: try key.publicKey())
    }

    /// A key from the system's random source.
    public static func generate() throws(SigningError) -> SigningKey {
        try SigningKey(seed: try OpenSSLKey.generate().seed())
    }

    /// A key file's text: a PEM private key (PKCS#8, `-----BEGIN PRIVATE
    /// KEY-----`, as `openssl genpkey -algorithm ed25519` and `feedmerge key
    /// new` write it) or a private JWK (`"kty":"OKP"`, `"crv":"Ed25519"`, `"d"`).
    public init(reading text: String) throws(SigningError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("{") {
            try self.init(jwk: trimmed)
        } else {
            try self.init(seed: try OpenSSLKey.reading(pem: Array(trimmed.utf8)).seed())
        }
    }

    /// The key in the file at `path`.
    public init(contentsOfFile path: String) throws(SigningError) {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw SigningError("reading \(path)", "cannot be read as text (\(error.localizedDescription))")
        }
        do {
            try self.init(reading: text)
        } catch {
            throw SigningError("reading \(path)", error.reason)
        }
    }

    private init(jwk text: String) throws(SigningError) {
        let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        guard let object else { throw SigningError("reading the key", "not a JSON object") }
        guard object["kty"] as? String == "OKP", object["crv"] as? String == "Ed25519" else {
            throw SigningError("reading the key", #"a JWK of "kty":"OKP" and "crv":"Ed25519" is needed"#)
        }
        guard let d = object["d"] as? String, let seed = Base64URL.decode(d) else {
            throw SigningError("reading the key", #"the JWK has no private key ("d")"#)
        }
        try self.init(seed: seed)
        if let x = object["x"] as? String, x != publicKey.x {
            throw SigningError("reading the key", #"the JWK's "x" is not the public half of its "d""#)
        }
    }

    /// The key as a PEM private key (PKCS#8).
    public func pem() throws(SigningError) -> String {
        try OpenSSLKey(seed: seed).pem()
    }

    /// Ed25519 (RFC 8032 section 5.1.6) over `message`: 64 bytes.
    public func sign(_ message: [UInt8]) throws(SigningError) -> [UInt8] {
        try OpenSSLKey(seed: seed).sign(message)
    }
}

extension SigningKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Never the private half: a key in a log line, an error or a test's failure names its thumbprint.
    public var description: String { "Ed25519 key \(publicKey.thumbprint)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["thumbprint": publicKey.thumbprint]) }
}
