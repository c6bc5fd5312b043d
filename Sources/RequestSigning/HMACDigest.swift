internal import CLibCrypto

/// HMAC (RFC 2104) over the hashes a WebSub hub may sign a delivery with
/// (`X-Hub-Signature: METHOD=HEX`), from libcrypto.
public enum HMACDigest: String, Sendable, CaseIterable {
    case sha1, sha256, sha384, sha512

    /// The corresponding C function is `HMAC`.
    public func authenticate(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        let digest: OpaquePointer? =
            switch self {
            case .sha1: EVP_sha1()
            case .sha256: EVP_sha256()
            case .sha384: EVP_sha384()
            case .sha512: EVP_sha512()
            }
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var count: UInt32 = 0
        let done = HMAC(digest, key, Int32(key.count), message, message.count, &output, &count)
        precondition(done != nil, "HMAC failed: \(OpenSSLKey.lastError())")
        return Array(output.prefix(Int(count)))
    }

    /// Whether `claimed` (hex, any case) is the HMAC of `message`, compared in time that does not
    /// depend on where the two differ.
    public func verify(_ claimed: String, message: [UInt8], key: [UInt8]) -> Bool {
        let expected = authenticate(message, key: key)
        let hex = Array(claimed.lowercased().utf8)
        guard hex.count == expected.count * 2 else { return false }
        var difference: UInt8 = 0
        for (index, byte) in expected.enumerated() {
            let digits = Array(Self.hex(byte).utf8)
            difference |= digits[0] ^ hex[2 * index]
            difference |= digits[1] ^ hex[2 * index + 1]
        }
        return difference == 0
    }

    /// Two lowercase hex digits.
    public static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }

    /// The kernel's random bytes (a WebSub secret's key).
    public static func randomBytes(_ count: Int) -> [UInt8] { Crypto.randomBytes(count) }
}
