import Foundation

/// RFC 4648 section 5's URL-safe alphabet without padding, as JWKs (RFC 7515
/// section 2) and JWK thumbprints (RFC 7638) write bytes.
public enum Base64URL {
    public static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// nil when `text` is not unpadded base64url.
    public static func decode(_ text: String) -> [UInt8]? {
        guard !text.contains("="), !text.contains("+"), !text.contains("/") else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }
}

extension Base64URL {
    /// RFC 4648 section 4's alphabet with padding (sf-binary, PEM).
    static func standard(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }
}
