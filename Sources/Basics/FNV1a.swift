/// The 64-bit FNV-1a hash: stable across runs, processes and machines
/// (unlike `Hasher`), for names that must come out the same every time
/// (fallback ids, state keys). Not for security.
public struct FNV1a: Sendable {
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    public mutating func add(_ text: some StringProtocol) {
        for byte in text.utf8 { add(byte) }
    }

    public mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes { add(byte) }
    }

    @inline(__always)
    public mutating func add(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x100_0000_01b3
    }

    /// The hash of a text's UTF-8 bytes.
    public static func hash(_ text: some StringProtocol) -> UInt64 {
        var hasher = FNV1a()
        hasher.add(text)
        return hasher.value
    }
}
