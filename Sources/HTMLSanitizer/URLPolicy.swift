import FeedParse

/// URL attribute values: the browser's normalisation, resolution against the
/// entry's base, then a scheme allowlist.
enum URLPolicy {
    /// The value to write for a URL attribute, or nil to drop the attribute.
    ///
    /// Steps, as the URL Standard's parser and the HTML attribute reader
    /// apply them (gumbo has already decoded character references):
    /// leading and trailing C0 controls and spaces stripped, every tab, CR and
    /// LF removed, other controls and noncharacters percent-encoded, the
    /// scheme (if the value starts with one) lowercased. A
    /// value without a scheme is relative: resolved against `base` when there
    /// is one, else kept relative (it can only point into the page's own
    /// scheme). Allowed: `http`, `https`, `mailto`; for images also
    /// `data:image/png|gif|jpeg|webp;base64,…`.
    static func check(_ value: UnsafeBufferPointer<UInt8>, image: Bool, base: String?) -> [UInt8]? {
        var bytes = normalized(value)
        guard let colon = schemeEnd(bytes) else {
            guard let base, !bytes.isEmpty else { return bytes }
            let resolved = URLReference.resolve(String(decoding: bytes, as: UTF8.self), against: base)
            // Normalized again: the base's own tab or newline (`http:/\t/`) would otherwise reach
            // the output, which a browser, and the sanitizer's next pass, read without it (fuzzer).
            bytes = Array(resolved.utf8).withUnsafeBufferPointer(normalized)
            guard let colon = schemeEnd(bytes) else { return bytes }
            return allowed(&bytes, colon: colon, image: image) ? bytes : nil
        }
        return allowed(&bytes, colon: colon, image: image) ? bytes : nil
    }

    /// Strips C0 controls and spaces at both ends, removes tab, LF and CR,
    /// and percent-encodes the characters `MarkupWriter` would otherwise drop
    /// (C0 controls, DEL, C1 controls, noncharacters), as the URL parser
    /// encodes them. So the scheme is judged on what is written: dropped
    /// later, the backspace in `java&#x08;script:` (a relative URL here) made
    /// `javascript:` in the output (fuzz-sanitize).
    static func normalized(_ value: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var start = 0
        var end = value.count
        while start < end, value[start] <= 0x20 { start += 1 }
        while end > start, value[end - 1] <= 0x20 { end -= 1 }
        var out: [UInt8] = []
        out.reserveCapacity(end - start)
        var index = start
        while index < end {
            let byte = value[index]
            var width = 1
            switch byte {
            case 0x09, 0x0A, 0x0D:
                index += 1
                continue
            case 0x00..<0x20, 0x7F:
                percentEncode(UnsafeBufferPointer(rebasing: value[index..<index + 1]), into: &out)
            case 0xC2, 0xEF, 0xF0...0xF4:
                width = MarkupWriter.sequenceWidth(lead: byte)
                guard index + width <= end,
                    MarkupWriter.unreadable(UnsafeBufferPointer(rebasing: value[index..<index + width]))
                else {
                    width = 1
                    out.append(byte)
                    break
                }
                percentEncode(UnsafeBufferPointer(rebasing: value[index..<index + width]), into: &out)
            default:
                out.append(byte)
            }
            index += width
        }
        return out
    }

    private static let hex = Array("0123456789ABCDEF".utf8)

    private static func percentEncode(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        for byte in bytes {
            out.append(UInt8(ascii: "%"))
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0F)])
        }
    }

    /// The index of the colon ending a scheme (`[A-Za-z][A-Za-z0-9+.-]*:`), or nil.
    static func schemeEnd(_ bytes: [UInt8]) -> Int? {
        guard let first = bytes.first, isLetter(first) else { return nil }
        for (index, byte) in bytes.enumerated().dropFirst() {
            if byte == UInt8(ascii: ":") { return index }
            guard isLetter(byte) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2B || byte == 0x2D || byte == 0x2E
            else { return nil }
        }
        return nil
    }

    /// Lowercases the scheme in place and says whether it is allowed.
    static func allowed(_ bytes: inout [UInt8], colon: Int, image: Bool) -> Bool {
        for index in 0..<colon where bytes[index] >= 0x41 && bytes[index] <= 0x5A { bytes[index] |= 0x20 }
        let scheme = bytes[0..<colon]
        if scheme.elementsEqual("http".utf8) || scheme.elementsEqual("https".utf8) || scheme.elementsEqual("mailto".utf8) {
            return true
        }
        return image && scheme.elementsEqual("data".utf8) && isImageData(bytes[(colon + 1)...])
    }

    private static let imageTypes = ["image/png", "image/gif", "image/jpeg", "image/webp"].map { Array("\($0);base64,".utf8) }

    /// `image/png;base64,` (or gif, jpeg, webp; type case-insensitive) then base64 only.
    private static func isImageData(_ rest: ArraySlice<UInt8>) -> Bool {
        for prefix in imageTypes where rest.count >= prefix.count {
            let head = rest.prefix(prefix.count)
            guard zip(head, prefix).allSatisfy({ ($0 | ($0 >= 0x41 && $0 <= 0x5A ? 0x20 : 0)) == $1 }) else { continue }
            return rest.dropFirst(prefix.count).allSatisfy(isBase64)
        }
        return false
    }

    private static func isBase64(_ byte: UInt8) -> Bool {
        isLetter(byte) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2B || byte == 0x2F || byte == 0x3D
    }

    static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
}
