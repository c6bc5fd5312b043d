/// `srcset` values (HTML, "parse a srcset attribute"): each image candidate's
/// URL goes through `URLPolicy` as an image URL, its descriptor must be one
/// width (`300w`) or density (`1.5x`). A bad candidate is dropped alone; the
/// attribute goes when no candidate is left.
enum SourceSetPolicy {
    static func check(_ value: UnsafeBufferPointer<UInt8>, base: String?) -> [UInt8]? {
        var out: [UInt8] = []
        var position = 0
        let count = value.count
        while position < count {
            // Skip whitespace and commas before a candidate.
            while position < count, isSpace(value[position]) || value[position] == 0x2C { position += 1 }
            guard position < count else { break }
            let urlStart = position
            while position < count, !isSpace(value[position]) { position += 1 }
            var urlEnd = position
            var descriptors: [UInt8] = []
            if value[urlEnd - 1] == 0x2C {
                // A URL ending in commas has no descriptors.
                while urlEnd > urlStart, value[urlEnd - 1] == 0x2C { urlEnd -= 1 }
            } else {
                // Descriptors run to the next comma outside parentheses.
                var depth = 0
                while position < count {
                    let byte = value[position]
                    if byte == 0x28 { depth += 1 } else if byte == 0x29 { depth -= 1 }
                    if byte == 0x2C, depth <= 0 { break }
                    descriptors.append(byte)
                    position += 1
                }
            }
            guard urlEnd > urlStart, let descriptor = validDescriptor(descriptors),
                let url = URLPolicy.check(UnsafeBufferPointer(rebasing: value[urlStart..<urlEnd]), image: true, base: base),
                !url.isEmpty, !url.contains(where: isSpace), url.last != 0x2C
            else { continue }
            if !out.isEmpty { out.append(contentsOf: ", ".utf8) }
            out.append(contentsOf: url)
            if !descriptor.isEmpty {
                out.append(0x20)
                out.append(contentsOf: descriptor)
            }
        }
        return out.isEmpty ? nil : out
    }

    /// The trimmed descriptor when it is empty, `<digits>w`, `<digits>h` or `<number>x`; nil otherwise.
    private static func validDescriptor(_ bytes: [UInt8]) -> ArraySlice<UInt8>? {
        var trimmed = bytes[...]
        while let first = trimmed.first, isSpace(first) { trimmed.removeFirst() }
        while let last = trimmed.last, isSpace(last) { trimmed.removeLast() }
        guard let unit = trimmed.last else { return trimmed }
        let number = trimmed.dropLast()
        guard !number.isEmpty, number.count <= 12 else { return nil }
        let digitsOnly = number.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
        switch unit {
        case UInt8(ascii: "w"), UInt8(ascii: "h"): return digitsOnly ? trimmed : nil
        case UInt8(ascii: "x"):
            let dots = number.filter { $0 == 0x2E }.count
            let valid = dots <= 1 && number.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E }
                && number.contains { $0 >= 0x30 && $0 <= 0x39 }
            return valid ? trimmed : nil
        default: return nil
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
    }
}
