import Glibc

/// Converts bytes in some character encoding to UTF-8 with iconv.
///
/// One instance owns one `iconv_t`; it is opened and closed here and nowhere
/// else. Bytes that are invalid in the source encoding become U+FFFD.
final class Transcoder {
    private let handle: iconv_t

    /// - Returns: nil when iconv knows no such encoding.
    init?(from encoding: String, to target: String = "UTF-8") {
        let opened = iconv_open(target, encoding)
        guard let opened, Int(bitPattern: opened) != -1 else { return nil }
        handle = opened
    }

    deinit { iconv_close(handle) }

    /// The UTF-8 form of `input`; the corresponding C function is `iconv`.
    func convert(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        guard let base = input.baseAddress, !input.isEmpty else { return [] }
        var output = [UInt8](repeating: 0, count: input.count * 2 + 16)
        var written = 0
        var inPointer = UnsafeMutablePointer(mutating: UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self))
        var inLeft = input.count
        while inLeft > 0 {
            if output.count - written < 16 { output.append(contentsOf: repeatElement(0, count: output.count)) }
            let result: Int = output.withUnsafeMutableBytes { raw in
                var outPointer: UnsafeMutablePointer<CChar>? = raw.baseAddress!.advanced(by: written)
                    .assumingMemoryBound(to: CChar.self)
                var outLeft = raw.count - written
                var inOptional: UnsafeMutablePointer<CChar>? = inPointer
                let r = iconv(handle, &inOptional, &inLeft, &outPointer, &outLeft)
                inPointer = inOptional!
                written = raw.count - outLeft
                return r
            }
            guard result == -1 else { break }
            switch errno {
            case E2BIG:
                output.append(contentsOf: repeatElement(0, count: output.count))
            default:  // EILSEQ or EINVAL: skip one byte, write U+FFFD
                if output.count - written < 3 { output.append(contentsOf: repeatElement(0, count: 64)) }
                output[written] = 0xEF
                output[written + 1] = 0xBF
                output[written + 2] = 0xBD
                written += 3
                inPointer += 1
                inLeft -= 1
                iconv(handle, nil, nil, nil, nil)
            }
        }
        output.removeSubrange(written...)
        return output
    }
}

/// Decodes windows-1252 without iconv (the fallback must never fail). The
/// five bytes the encoding leaves undefined map to the C1 controls, as the
/// WHATWG Encoding Standard says.
enum Windows1252 {
    static let high: [UInt32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D,
        0x017D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A,
        0x0153, 0x9D, 0x017E, 0x0178,
    ]

    /// The scalar a byte 0x80...0x9F stands for (also used to repair C1
    /// controls that came from mislabelled windows-1252 text).
    static func scalar(forC1 value: UInt32) -> UInt32 {
        (0x80...0x9F).contains(value) ? high[Int(value - 0x80)] : value
    }

    static func decode(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(input.count + input.count / 8)
        for byte in input {
            if byte < 0x80 {
                output.append(byte)
            } else {
                let value = byte < 0xA0 ? high[Int(byte - 0x80)] : UInt32(byte)
                UTF8Writer.append(value, to: &output)
            }
        }
        return output
    }
}

enum UTF8Writer {
    static func append(_ value: UInt32, to output: inout [UInt8]) {
        switch value {
        case ..<0x80:
            output.append(UInt8(value))
        case ..<0x800:
            output.append(UInt8(0xC0 | (value >> 6)))
            output.append(UInt8(0x80 | (value & 0x3F)))
        case ..<0x10000:
            output.append(UInt8(0xE0 | (value >> 12)))
            output.append(UInt8(0x80 | ((value >> 6) & 0x3F)))
            output.append(UInt8(0x80 | (value & 0x3F)))
        default:
            output.append(UInt8(0xF0 | (value >> 18)))
            output.append(UInt8(0x80 | ((value >> 12) & 0x3F)))
            output.append(UInt8(0x80 | ((value >> 6) & 0x3F)))
            output.append(UInt8(0x80 | (value & 0x3F)))
        }
    }
}
