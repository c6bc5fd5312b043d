/// One message signature's covered components and metadata (RFC 9421
/// section 2.3): serialized, it is both the signature base's last line
/// (`"@signature-params"`) and the signature's member of `Signature-Input`.
public struct SignatureParameters: Sendable, Equatable {
    /// A covered component: a field's lowercased name or a derived component
    /// (`@authority`); `request` marks a response's component taken from its
    /// request (`;req`, RFC 9421 section 2.4).
    public struct Component: Sendable, Equatable {
        public var name: String
        public var request: Bool

        public init(_ name: String, request: Bool = false) {
            self.name = name
            self.request = request
        }

        var serialized: String { StructuredField.string(name) + (request ? ";req" : "") }
    }

    /// A signature metadata parameter (RFC 9421 section 2.3), in the order given.
    public enum Parameter: Sendable, Equatable {
        case created(Int)
        case expires(Int)
        case keyid(String)
        case alg(String)
        case nonce(String)
        case tag(String)

        var serialized: String {
            switch self {
            case .created(let seconds): "created=\(seconds)"
            case .expires(let seconds): "expires=\(seconds)"
            case .keyid(let id): "keyid=" + StructuredField.string(id)
            case .alg(let name): "alg=" + StructuredField.string(name)
            case .nonce(let nonce): "nonce=" + StructuredField.string(nonce)
            case .tag(let tag): "tag=" + StructuredField.string(tag)
            }
        }
    }

    public var components: [Component]
    public var parameters: [Parameter]

    public init(components: [Component], parameters: [Parameter]) {
        self.components = components
        self.parameters = parameters
    }

    /// The inner list with its parameters: `("@authority");created=1;keyid="k"`.
    public var serialized: String {
        "(" + components.map(\.serialized).joined(separator: " ") + ")"
            + parameters.map { ";" + $0.serialized }.joined()
    }

    /// The signature base (RFC 9421 section 2.5): one `"component": value`
    /// line per covered component, `values` in the order of `components`,
    /// then `"@signature-params"`; lines joined by LF, none after the last.
    public func base(values: [String]) -> String {
        precondition(values.count == components.count, "one value per covered component")
        let lines = zip(components, values).map { "\($0.serialized): \($1)" }
        return (lines + ["\"@signature-params\": " + serialized]).joined(separator: "\n")
    }
}

/// The little of RFC 8941 (Structured Field Values) signing writes.
enum StructuredField {
    /// An sf-string: quoted, `"` and `\` escaped. Its text must be printable
    /// ASCII; everything feedmerge puts in one is checked before (a URL) or
    /// is so by construction (base64url, fixed words).
    static func string(_ text: String) -> String {
        precondition(isPrintableASCII(text), "an sf-string holds printable ASCII only")
        return "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            + "\""
    }

    /// An sf-binary: the bytes in standard base64 between colons.
    static func binary(_ bytes: [UInt8]) -> String {
        ":" + base64(bytes) + ":"
    }

    static func isPrintableASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { (0x20...0x7E).contains($0) }
    }

    private static func base64(_ bytes: [UInt8]) -> String {
        Base64URL.standard(bytes)
    }
}
