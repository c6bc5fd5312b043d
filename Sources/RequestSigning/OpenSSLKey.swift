internal import CLibCrypto

/// One Ed25519 key held by OpenSSL: the only owner of its `EVP_PKEY`, freed
/// when this goes, with the thread's OpenSSL state. Made for one operation
/// and dropped after it, so no C pointer outlives the call that needed it.
final class OpenSSLKey {
    private let key: OpaquePointer

    private init(taking key: OpaquePointer) {
        self.key = key
    }

    deinit {
        EVP_PKEY_free(key)
        CLibCrypto_releaseThreadState()
    }

    /// The key whose 32-byte private half (RFC 8032's seed) is `seed`.
    /// The corresponding C function is `EVP_PKEY_new_raw_private_key`.
    convenience init(seed: [UInt8]) throws(SigningError) {
        guard seed.count == 32 else {
            throw SigningError("reading the key", "an Ed25519 key is 32 bytes, not \(seed.count)")
        }
        guard let key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, seed, seed.count) else {
            throw SigningError("reading the key", OpenSSLKey.lastError())
        }
        self.init(taking: key)
    }

    /// A key made from the system's random source.
    /// The corresponding C functions are `EVP_PKEY_keygen_init` and `EVP_PKEY_keygen`.
    static func generate() throws(SigningError) -> OpenSSLKey {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nil) else {
            throw SigningError("making a key", lastError())
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_keygen(context, &key) == 1, let key else {
            throw SigningError("making a key", lastError())
        }
        return OpenSSLKey(taking: key)
    }

    /// A PEM private key (PKCS#8, as `openssl genpkey -algorithm ed25519` writes it); an Ed25519 key only.
    /// The corresponding C function is `PEM_read_bio_PrivateKey`.
    static func reading(pem: [UInt8]) throws(SigningError) -> OpenSSLKey {
        let read: OpaquePointer? = pem.withUnsafeBytes { bytes in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let read else { throw SigningError("reading the key", "not a PEM private key (\(lastError()))") }
        let key = OpenSSLKey(taking: read)
        guard EVP_PKEY_get_id(read) == EVP_PKEY_ED25519 else {
            throw SigningError("reading the key", "not an Ed25519 key (Web Bot Auth signs with Ed25519)")
        }
        return key
    }

    /// The private half: 32 bytes.
    func seed() throws(SigningError) -> [UInt8] {
        try raw(EVP_PKEY_get_raw_private_key, "reading the private key")
    }

    /// The public half: 32 bytes, as RFC 8032 encodes it.
    func publicKey() throws(SigningError) -> [UInt8] {
        try raw(EVP_PKEY_get_raw_public_key, "reading the public key")
    }

    private func raw(
        _ get: (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int>?) -> Int32, _ operation: String
    ) throws(SigningError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 32)
        var count = bytes.count
        guard get(key, &bytes, &count) == 1, count == 32 else { throw SigningError(operation, OpenSSLKey.lastError()) }
        return bytes
    }

    /// The key as a PEM private key (PKCS#8, unencrypted).
    /// The corresponding C function is `PEM_write_bio_PrivateKey`.
    func pem() throws(SigningError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw SigningError("writing the key", OpenSSLKey.lastError()) }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1 else {
            throw SigningError("writing the key", OpenSSLKey.lastError())
        }
        var bytes: UnsafeMutablePointer<CChar>?
        let count = CLibCrypto_memoryData(bio, &bytes)
        guard let bytes, count > 0 else { throw SigningError("writing the key", OpenSSLKey.lastError()) }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Ed25519 over `message` as it is (no prehash): 64 bytes.
    /// The corresponding C functions are `EVP_DigestSignInit` and `EVP_DigestSign`.
    func sign(_ message: [UInt8]) throws(SigningError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw SigningError("signing", OpenSSLKey.lastError()) }
        defer { EVP_MD_CTX_free(context) }
        var signature = [UInt8](repeating: 0, count: 64)
        var count = signature.count
        guard EVP_DigestSignInit(context, nil, nil, nil, key) == 1,
            EVP_DigestSign(context, &signature, &count, message, message.count) == 1, count == 64
        else { throw SigningError("signing", OpenSSLKey.lastError()) }
        return signature
    }

    /// OpenSSL's words for the last failure on this thread.
    static func lastError() -> String {
        var text = [CChar](repeating: 0, count: 256)
        CLibCrypto_takeError(&text, text.count)
        let message = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return message.isEmpty ? "OpenSSL gave no reason" : message
    }
}

@available(*, unavailable) extension OpenSSLKey: Sendable {}

/// SHA-256, from the same library, and random bytes.
enum Crypto {
    /// The corresponding C function is `EVP_Digest` with `EVP_sha256`.
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var count: UInt32 = 32
        let done = EVP_Digest(bytes, bytes.count, &digest, &count, EVP_sha256(), nil)
        precondition(done == 1 && count == 32, "SHA-256 failed: \(OpenSSLKey.lastError())")
        return digest
    }

    /// The kernel's random bytes (`getrandom`, through the standard library's
    /// `SystemRandomNumberGenerator`): all a nonce needs, with no generator of OpenSSL's kept
    /// per thread.
    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
