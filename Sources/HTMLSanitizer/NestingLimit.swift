/// A cheap guard run before gumbo on long inputs: gumbo's scope checks walk
/// the stack of open elements, so a document of N nested elements costs
/// N² steps (100,000 nested `div`s: over a minute) and its tree is freed
/// recursively. Start tags beyond `maximum` estimated levels, and as many
/// end tags after them, are cut out of the input; their text stays. The
/// estimate is a plain scan (no attribute quoting), which is fine: whatever
/// gumbo then parses still goes through the whole sanitizer, so this can
/// only change what content survives, never what is allowed.
enum NestingLimit {
    static let maximum = 1024

    /// Tags that close themselves implicitly (`p`, `li`, `td`, …) and void
    /// ones are not counted: a long list of unclosed `<li>` is not nesting.
    private static let uncounted: Set<[UInt8]> = Set(
        [
            "p", "li", "dt", "dd", "tr", "td", "th", "option", "optgroup", "rb", "rt", "rp", "rtc", "tbody",
            "thead", "tfoot", "colgroup", "caption", "area", "base", "br", "col", "embed", "hr", "img", "input",
            "link", "meta", "param", "source", "track", "wbr", "image", "keygen", "basefont", "bgsound", "frame",
        ].map { Array($0.utf8) })

    /// Elements whose content is text up to their end tag (skipped whole).
    private static let rawText: Set<[UInt8]> = Set(
        ["script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "noscript"].map {
            Array($0.utf8)
        })

    /// The input with the excess tags cut out, or nil when it needs no change.
    static func apply(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard input.count > maximum * 3 else { return nil }
        var cuts: [Range<Int>] = []
        var depth = 0
        var index = 0
        let count = input.count
        while index < count {
            guard input[index] == UInt8(ascii: "<") else {
                index += 1
                continue
            }
            let start = index
            var cursor = index + 1
            let closing = cursor < count && input[cursor] == UInt8(ascii: "/")
            if closing { cursor += 1 }
            guard cursor < count, URLPolicy.isLetter(input[cursor]) else {
                // A comment, doctype or stray '<': skip to its end.
                index = skipComment(input, from: start)
                continue
            }
            let nameStart = cursor
            while cursor < count, !isNameEnd(input[cursor]) { cursor += 1 }
            let name = Array(input[nameStart..<cursor]).map { $0 | (URLPolicy.isLetter($0) ? 0x20 : 0) }
            while cursor < count, input[cursor] != UInt8(ascii: ">") { cursor += 1 }
            let selfClosing = cursor > start && input[cursor - 1] == UInt8(ascii: "/")
            index = min(cursor + 1, count)
            if uncounted.contains(name) { continue }
            if closing {
                if depth > maximum { cuts.append(start..<index) }
                depth = max(depth - 1, 0)
            } else if rawText.contains(name) {
                index = skipRawText(input, from: index, name: name)
            } else if !selfClosing {
                depth += 1
                if depth > maximum { cuts.append(start..<index) }
            }
        }
        guard !cuts.isEmpty else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(count)
        var from = 0
        for cut in cuts {
            out.append(contentsOf: input[from..<cut.lowerBound])
            from = cut.upperBound
        }
        out.append(contentsOf: input[from..<count])
        return out
    }

    private static func isNameEnd(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D || byte == 0x2F || byte == 0x3E
    }

    private static func skipComment(_ input: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        let isComment = start + 3 < input.count && input[start + 1] == 0x21 && input[start + 2] == 0x2D
            && input[start + 3] == 0x2D
        var index = start + 1
        while index < input.count {
            if input[index] == UInt8(ascii: ">"), !isComment || (index >= start + 4 && input[index - 1] == 0x2D && input[index - 2] == 0x2D) {
                return index + 1
            }
            index += 1
        }
        return input.count
    }

    /// The index after `</name`'s closing '>' (case-insensitive), or the end.
    private static func skipRawText(_ input: UnsafeBufferPointer<UInt8>, from start: Int, name: [UInt8]) -> Int {
        var index = start
        while index + 1 + name.count < input.count {
            if input[index] == UInt8(ascii: "<"), input[index + 1] == UInt8(ascii: "/"),
                zip(input[(index + 2)...].prefix(name.count), name).allSatisfy({ ($0 | 0x20) == $1 })
            {
                return index + 2 + name.count
            }
            index += 1
        }
        return input.count
    }
}
