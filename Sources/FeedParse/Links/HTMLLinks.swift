import Glibc

/// Makes the URL attributes inside an HTML fragment absolute.
///
/// A small scanner over tags, not an HTML parser: it finds each start tag,
/// reads its attributes, and rewrites only the values of URL attributes that
/// are relative, leaving every other byte of the markup as it was. An
/// `xml:base` on an element (inline XHTML keeps them) changes the base for
/// that element's own attributes and everything inside it (XML Base,
/// section 4.2), until its end tag.
enum HTMLLinks {
    /// Attributes whose values are one URL (HTML 4 and 5, and the old
    /// `dynsrc`/`lowsrc`), lower case. `srcset` and `imagesrcset` hold a
    /// list and are read as such.
    static let urlAttributes: [StaticString] = [
        "href", "src", "cite", "poster", "background", "longdesc", "action", "usemap", "codebase", "data",
        "formaction", "manifest", "profile", "classid", "icon", "dynsrc", "lowsrc", "xlink:href",
    ]
    static let sourceSetAttributes: [StaticString] = ["srcset", "imagesrcset"]
    /// Elements without an end tag, which open no `xml:base` scope.
    private static let voidElements: Set<[UInt8]> = Set(
        ["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"]
            .map { Array($0.utf8) })

    static func absolutize(_ html: String, base: String?) -> String {
        guard let base else { return html }
        var html = html
        return html.withUTF8 { absolutize($0, base: base) } ?? html
    }

    /// One attribute of a start tag, as byte ranges.
    private struct Attribute {
        var name: Range<Int>
        var value: Range<Int>
        var quote: UInt8
    }

    /// nil when nothing changed (no relative URL), so the caller keeps its string.
    private static func absolutize(_ bytes: UnsafeBufferPointer<UInt8>, base documentBase: String) -> String? {
        var out: [UInt8] = []
        var copied = 0
        let n = bytes.count
        let start = bytes.baseAddress!
        // Only markup that spells `xml:base` needs its elements tracked.
        let tracksBases = mentionsXMLBase(bytes)
        var scopes: [(name: ArraySlice<UInt8>, base: String)] = []
        var attributes: [Attribute] = []
        var i = 0
        while i < n {
            guard let hit = memchr(start + i, Int32(UInt8(ascii: "<")), n - i) else { break }
            i = UnsafeRawPointer(hit).assumingMemoryBound(to: UInt8.self) - start + 1
            if tracksBases, i + 1 < n, bytes[i] == UInt8(ascii: "/"), isLetter(bytes[i + 1]) {
                let nameStart = i + 1
                i = nameStart
                while i < n, !isSpace(bytes[i]), bytes[i] != UInt8(ascii: ">") { i += 1 }
                let name = lowercased(bytes[nameStart..<i])
                if let open = scopes.lastIndex(where: { $0.name == name }) { scopes.removeSubrange(open...) }
                continue
            }
            guard i < n, isLetter(bytes[i]) else { continue }
            let nameStart = i
            while i < n, !isSpace(bytes[i]), bytes[i] != UInt8(ascii: ">"), bytes[i] != UInt8(ascii: "/") { i += 1 }
            let tagName = nameStart..<i
            attributes.removeAll(keepingCapacity: true)
            i = readAttributes(bytes, from: i, into: &attributes)
            var base = tracksBases ? scopes.last?.base ?? documentBase : documentBase
            if tracksBases, let xmlBase = attributes.first(where: { matches(bytes[$0.name], "xml:base") }) {
                base = URLReference.resolve(String(decoding: bytes[xmlBase.value], as: UTF8.self), against: base)
                let name = lowercased(bytes[tagName])
                let selfClosing = i >= 2 && bytes[i - 1] == UInt8(ascii: ">") && bytes[i - 2] == UInt8(ascii: "/")
                if !selfClosing && !voidElements.contains(Array(name)) { scopes.append((name, base)) }
            }
            for attribute in attributes where mayBeURLAttribute(bytes[attribute.name]) {
                let name = bytes[attribute.name]
                let resolved: String
                if sourceSetAttributes.contains(where: { matches(name, $0) }) {
                    resolved = resolveSourceSet(String(decoding: bytes[attribute.value], as: UTF8.self), base: base)
                } else if urlAttributes.contains(where: { matches(name, $0) }) {
                    var schemeStart = attribute.value.lowerBound  // leading whitespace does not count
                    while schemeStart < attribute.value.upperBound, isSpace(bytes[schemeStart]) { schemeStart += 1 }
                    guard !URLReference.hasScheme(utf8: bytes[schemeStart..<attribute.value.upperBound]) else {
                        continue
                    }
                    resolved = URLReference.resolve(
                        String(decoding: bytes[attribute.value], as: UTF8.self), against: base)
                } else {
                    continue
                }
                guard !resolved.utf8.elementsEqual(bytes[attribute.value]) else { continue }
                var escaped = resolved
                if attribute.quote == UInt8(ascii: "\"") || attribute.quote == 0 {
                    escaped = escaped.replacingAll("\"", with: "&quot;")
                }
                if attribute.quote == UInt8(ascii: "'") { escaped = escaped.replacingAll("'", with: "&#39;") }
                if out.isEmpty { out.reserveCapacity(n + 256) }
                out.append(contentsOf: bytes[copied..<attribute.value.lowerBound])
                // An unquoted value is quoted once resolved: a base with a space or `>` in it
                // must not end the value early and start new attributes or elements.
                if attribute.quote == 0 { out.append(UInt8(ascii: "\"")) }
                out.append(contentsOf: escaped.utf8)
                if attribute.quote == 0 { out.append(UInt8(ascii: "\"")) }
                copied = attribute.value.upperBound
            }
        }
        guard copied > 0 else { return nil }
        out.append(contentsOf: bytes[copied...])
        return String(decoding: out, as: UTF8.self)
    }

    /// Reads the attributes of a start tag from `i` (just after its name)
    /// to its `>`; returns the index after the tag.
    private static func readAttributes(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, into attributes: inout [Attribute]
    ) -> Int {
        let n = bytes.count
        var i = start
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
            attributes.append(Attribute(name: nameStart..<nameEnd, value: valueStart..<valueEnd, quote: quote))
        }
        return min(n, i + 1)
    }

    /// A `srcset` list (HTML, "parse a srcset attribute"): each candidate's
    /// URL resolved, its descriptors kept, candidates joined by `, `.
    static func resolveSourceSet(_ value: String, base: String) -> String {
        var candidates: [String] = []
        var rest = Substring(value)
        while true {
            rest = rest.drop { $0 == "," || $0.isWhitespace }
            guard !rest.isEmpty else { break }
            var url = rest.prefix { !$0.isWhitespace }
            rest = rest.dropFirst(url.count)
            var descriptors = ""
            if url.hasSuffix(",") {
                while url.hasSuffix(",") { url = url.dropLast() }
            } else {
                var depth = 0
                let end =
                    rest.firstIndex { c in
                        if c == "(" { depth += 1 } else if c == ")" { depth = max(0, depth - 1) }
                        return c == "," && depth == 0
                    } ?? rest.endIndex
                descriptors = rest[..<end].split(whereSeparator: \.isWhitespace).joined(separator: " ")
                rest = rest[end...]
            }
            let resolved = URLReference.resolve(String(url), against: base)
            candidates.append(descriptors.isEmpty ? resolved : resolved + " " + descriptors)
        }
        return candidates.joined(separator: ", ")
    }

    /// Whether an attribute name is `known`, in any case.
    private static func matches(_ name: Slice<UnsafeBufferPointer<UInt8>>, _ known: StaticString) -> Bool {
        known.utf8CodeUnitCount == name.count
            && name.enumerated().allSatisfy { $0.element | 0x20 == known.utf8Start[$0.offset] | 0x20 }
    }

    private static func lowercased(_ name: Slice<UnsafeBufferPointer<UInt8>>) -> ArraySlice<UInt8> {
        ArraySlice(name.map { isLetter($0) ? $0 | 0x20 : $0 })
    }

    /// Whether `xml:base` occurs anywhere (found by its colon, like
    /// `XMLAttributeMentions` in XMLTree).
    private static func mentionsXMLBase(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // Searching for `x` (a colon search stopped at every `http:`), then comparing the word.
        let n = bytes.count
        var i = 0
        while i + 8 <= n, let hit = memchr(bytes.baseAddress! + i, Int32(UInt8(ascii: "x")), n - i) {
            let x = UnsafeRawPointer(hit).assumingMemoryBound(to: UInt8.self) - bytes.baseAddress!
            if x + 8 <= n, bytes[x..<(x + 8)].elementsEqual("xml:base".utf8) { return true }
            i = x + 1
        }
        return false
    }

    /// First letters of the URL attributes' names, as bits: a name starting
    /// otherwise is skipped without comparing it to each.
    private static let urlAttributeInitials: UInt32 = (urlAttributes + sourceSetAttributes).reduce(0) {
        $0 | 1 << UInt32($1.utf8Start[0] - UInt8(ascii: "a"))
    }

    private static func mayBeURLAttribute(_ name: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard let first = name.first, isLetter(first) else { return false }
        return urlAttributeInitials >> UInt32((first | 0x20) - UInt8(ascii: "a")) & 1 != 0
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
