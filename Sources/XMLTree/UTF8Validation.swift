/// Whether bytes are well-formed UTF-8 (no overlongs, no surrogates, nothing
/// above U+10FFFF), and whether they hold C1 controls (U+0080...U+009F),
/// which feeds only carry by mistake. ASCII is checked 32 bytes at a time.
enum UTF8Validation {
    enum Validity: Equatable {
        case invalid
        case valid(hasC1Controls: Bool)
    }

    static func check(_ bytes: UnsafeBufferPointer<UInt8>) -> Validity {
        guard let base = bytes.baseAddress else { return .valid(hasC1Controls: false) }
        let n = bytes.count
        let highs: UInt64 = 0x8080_8080_8080_8080
        var hasC1 = false
        var i = 0
        while i < n {
            if i + 32 <= n {
                let p = UnsafeRawPointer(base + i)
                let any =
                    p.loadUnaligned(as: UInt64.self) | p.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                    | p.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
                    | p.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
                if any & highs == 0 {
                    i += 32
                    continue
                }
            }
            let b = base[i]
            if b < 0x80 {
                i += 1
                continue
            }
            let length: Int
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch b {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                upper = 0x9F
            case 0xF0:
                length = 4
                lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                upper = 0x8F
            default: return .invalid
            }
            guard i + length <= n else { return .invalid }
            let second = base[i + 1]
            guard second >= lower && second <= upper else { return .invalid }
            if b == 0xC2 && second <= 0x9F { hasC1 = true }
            for k in 2..<max(2, length) where base[i + k] & 0xC0 != 0x80 { return .invalid }
            i += length
        }
        return .valid(hasC1Controls: hasC1)
    }

    /// Whether valid UTF-8 holds C1 controls (U+0080...U+009F: `C2 80`...`C2 9F`).
    static func hasC1Controls(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if case .valid(let hasC1) = check(bytes) { return hasC1 }
        return false
    }

    /// The bytes with every ill-formed sequence replaced by U+FFFD, one per
    /// maximal subpart (Unicode, section 3.9, as WHATWG and Python do), and
    /// how many well-formed multi-byte sequences and replacements there were.
    /// With `windows1252`, each byte of an ill-formed sequence is read as the
    /// windows-1252 character it stands for instead (a document that mixes
    /// UTF-8 with stray 8-bit text).
    static func replacingInvalidSequences(
        _ bytes: UnsafeBufferPointer<UInt8>, windows1252: Bool = false
    ) -> (bytes: [UInt8], wellFormedMultiByte: Int, replaced: Int) {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var multiByte = 0
        var replaced = 0
        let n = bytes.count
        var i = 0
        while i < n {
            let b = bytes[i]
            if b < 0x80 {
                out.append(b)
                i += 1
                continue
            }
            let (length, lower, upper) = sequenceShape(lead: b)
            // How many bytes, from the lead on, form a valid prefix.
            var valid = length == 0 ? 0 : 1
            while valid < length, i + valid < n {
                let c = bytes[i + valid]
                let (lo, hi): (UInt8, UInt8) = valid == 1 ? (lower, upper) : (0x80, 0xBF)
                guard c >= lo && c <= hi else { break }
                valid += 1
            }
            if length > 0 && valid == length {
                out.append(contentsOf: bytes[i..<(i + length)])
                multiByte += 1
                i += length
            } else if windows1252 {
                UTF8Writer.append(Windows1252.scalar(forC1: UInt32(b)), to: &out)
                replaced += 1
                i += 1
            } else {
                out.append(contentsOf: [0xEF, 0xBF, 0xBD])
                replaced += 1
                i += max(1, valid)
            }
        }
        return (out, multiByte, replaced)
    }

    /// The length of the sequence a lead byte starts (0: not a lead byte)
    /// and the range its second byte must fall in.
    private static func sequenceShape(lead b: UInt8) -> (length: Int, lower: UInt8, upper: UInt8) {
        switch b {
        case 0xC2...0xDF: return (2, 0x80, 0xBF)
        case 0xE0: return (3, 0xA0, 0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: return (3, 0x80, 0xBF)
        case 0xED: return (3, 0x80, 0x9F)
        case 0xF0: return (4, 0x90, 0xBF)
        case 0xF1...0xF3: return (4, 0x80, 0xBF)
        case 0xF4: return (4, 0x80, 0x8F)
        default: return (0, 0, 0)
        }
    }
}
