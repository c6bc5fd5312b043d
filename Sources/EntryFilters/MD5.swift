import Foundation

/// MD5 (RFC 1321), for the one place Venus names an entry by a digest:
/// the id it gives an entry that has neither an id nor a link
/// (`reconstitute.id`: the text's base, `/`, the hex digest of its title).
/// Not for anything that needs a secure hash.
enum MD5 {
    /// The digest of `text`'s UTF-8 bytes, as 32 lowercase hex digits.
    static func hex(_ text: String) -> String {
        digest(Array(text.utf8)).map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 15)]], as: UTF8.self)
        }.joined()
    }

    static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var message = bytes
        message.append(0x80)
        while message.count % 64 != 56 { message.append(0) }
        let bits = UInt64(bytes.count) &* 8
        for shift in stride(from: 0, to: 64, by: 8) { message.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476)
        for block in stride(from: 0, to: message.count, by: 64) {
            var words = [UInt32](repeating: 0, count: 16)
            for index in 0..<16 {
                let at = block + index * 4
                words[index] =
                    UInt32(message[at]) | UInt32(message[at + 1]) << 8 | UInt32(message[at + 2]) << 16
                    | UInt32(message[at + 3]) << 24
            }
            var (a, b, c, d) = state
            for step in 0..<64 {
                let (f, word): (UInt32, Int)
                switch step {
                case 0..<16: (f, word) = ((b & c) | (~b & d), step)
                case 16..<32: (f, word) = ((d & b) | (~d & c), (5 * step + 1) % 16)
                case 32..<48: (f, word) = (b ^ c ^ d, (3 * step + 5) % 16)
                default: (f, word) = (c ^ (b | ~d), (7 * step) % 16)
                }
                let sum = a &+ f &+ constants[step] &+ words[word]
                (a, d, c) = (d, c, b)
                b = b &+ (sum << shifts[step] | sum >> (32 - shifts[step]))
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
        }
        return [state.0, state.1, state.2, state.3].flatMap { word in
            (0..<4).map { UInt8(truncatingIfNeeded: word >> UInt32($0 * 8)) }
        }
    }

    /// Each step's left rotation.
    private static let shifts: [UInt32] = (0..<64).map { step in
        [[7, 12, 17, 22], [5, 9, 14, 20], [4, 11, 16, 23], [6, 10, 15, 21]][step / 16][step % 4]
    }

    /// floor(|sin(i + 1)| × 2³²), as RFC 1321 defines its table.
    private static let constants: [UInt32] = (0..<64).map { UInt32(abs(sin(Double($0 + 1))) * 4_294_967_296) }
}
