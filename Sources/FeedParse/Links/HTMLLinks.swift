import Glibc

/// Makes the URL attributes inside an HTML fragment absolute.
///
/// A small scanner over tags, not an HTML parser: it finds each start tag,
/// reads its attributes, and rewrites only the values of URL attributes that
/// are relative, leaving every other byte of the markup as it was.
enum HTMLLinks {
    /// Attributes whose values are URLs (HTML 4 and 5), lower case.
    static let urlAttributes: [StaticString] = [
        "href", "src", "cite", "poster", "background", "longdesc", "action", "usemap", "codebase", "data",
        "formaction", "manifest", "profile",
    ]

    static func absolutize(_ html: String, base: String?) -> String {
        guard let base else { return html }
        var html = html
        return html.withUTF8 { absolutize($0, base: base) } ?? html
    }

    /// nil when nothing changed (no relative URL), so the caller keeps its string.
    private static func absolutize(_ bytes: UnsafeBufferPointer<UInt8>, base: String) -> String? {
        var out: [UInt8] = []
        var copied = 0
        var i = 0
        let n = bytes.count
        while i < n {
            // The next start tag: `<` and a letter.
            guard let hit = memchr(bytes.baseAddress! + i, Int32(UInt8(ascii: "<")), n - i) else { break }
            i = UnsafeRawPointer(hit).assumingMemoryBound(to: UInt8.self) - bytes.baseAddress! + 1
            guard i < n, isLetter(bytes[i]) else { continue }
            while i < n, !isSpace(bytes[i]), bytes[i] != UInt8(ascii: ">"), bytes[i] != UInt8(ascii: "/") { i += 1 }
            // attributes
            while i < n, bytes[i] != UInt8(ascii: ">") {
                while i < n, isSpace(bytes[i]) || bytes[i] == UInt8(ascii: "/") { i += 1 }
                let nameStart = i
                while i < n, !isSpace(bytes[i]), bytes[i] != UInt8(ascii: "="), bytes[i] != UInt8(ascii: ">"),
                    bytes[i] != UInt8(ascii: "/")
                {
                    i += 1
                }
                let nameEnd = i
                if nameStart == nameEnd {
                    if i < n, bytes[i] != UInt8(ascii: ">") { i += 1 }
                    continue
                }
                var k = i
                while k < n, isSpace(bytes[k]) { k += 1 }
                guard k < n, bytes[k] == UInt8(ascii: "=") else { continue }
                k += 1
                while k < n, isSpace(bytes[k]) { k += 1 }
                var valueStart = k
                var valueEnd: Int
                var quote: UInt8 = 0
                if k < n, bytes[k] == UInt8(ascii: "\"") || bytes[k] == UInt8(ascii: "'") {
                    quote = bytes[k]
                    valueStart = k + 1
                    valueEnd = valueStart
                    while valueEnd < n, bytes[valueEnd] != quote { valueEnd += 1 }
                    i = min(n, valueEnd + 1)
                } else {
                    valueEnd = k
                    while valueEnd < n, !isSpace(bytes[valueEnd]), bytes[valueEnd] != UInt8(ascii: ">") {
                        valueEnd += 1
                    }
                    i = valueEnd
                }
                let name = UnsafeBufferPointer(rebasing: bytes[nameStart..<nameEnd])
                var schemeStart = valueStart  // a value's leading whitespace does not count
                while schemeStart < valueEnd, isSpace(bytes[schemeStart]) { schemeStart += 1 }
                guard isURLAttribute(name), !URLReference.hasScheme(utf8: bytes[schemeStart..<valueEnd]) else {
                    continue
                }
                let value = String(decoding: bytes[valueStart..<valueEnd], as: UTF8.self)
                var resolved = URLReference.resolve(value, against: base)
                if quote == UInt8(ascii: "\"") || quote == 0 {
                    resolved = resolved.replacingAll("\"", with: "&quot;")
                }
                if quote == UInt8(ascii: "'") { resolved = resolved.replacingAll("'", with: "&#39;") }
                if out.isEmpty { out.reserveCapacity(n + 256) }
                out.append(contentsOf: bytes[copied..<valueStart])
                out.append(contentsOf: resolved.utf8)
                copied = valueEnd
            }
            i += 1
        }
        guard copied > 0 else { return nil }
        out.append(contentsOf: bytes[copied...])
        return String(decoding: out, as: UTF8.self)
    }

    /// One of `urlAttributes`, in any case.
    private static func isURLAttribute(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        urlAttributes.contains { known in
            known.utf8CodeUnitCount == name.count
                && (0..<name.count).allSatisfy { name[$0] | 0x20 == known.utf8Start[$0] }
        }
    }

    private static func isLetter(_ b: UInt8) -> Bool {
        (b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "z")
    }
    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || (b >= 0x09 && b <= 0x0D) }
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        guard contains(target) else { return self }
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
