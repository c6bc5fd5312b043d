/// One pass over a document's UTF-8 bytes that makes it safe and parseable
/// before libxml2 sees it. It
/// - removes the document type declaration: no DTD is ever loaded. Of the
///   entities it declares, only internal ones whose value is plain text (no
///   `&`, `<` or `%`, at most 1 KB) are kept, and their expansion in all is
///   capped at the input's size plus 1 MB. External entities (XXE),
///   parameter entities, nested ones (billion laughs) stay unexpanded text,
///   and the cap stops the quadratic blowup;
/// - turns HTML named references (`&nbsp;`, `&eacute;`) into numeric ones,
///   escapes a bare `&` and an undefined `&name;` so they stay as text;
/// - drops characters XML 1.0 forbids (C0 controls, `&#0;`, U+FFFE/U+FFFF)
///   and maps C1 controls to the windows-1252 characters they were meant to be;
/// - drops whitespace before the first `<`;
/// - in a second pass, for a document the first left broken, writes raw
///   HTML void elements (`<br>`) self-closing (`MarkupRepair+VoidElements`).
/// The DOCTYPE scan lives in `MarkupRepair+Doctype`, the handling of `&`
/// (character and entity references) in `MarkupRepair+References`.
/// CDATA sections, comments and processing instructions are left alone but
/// for the forbidden characters. When nothing needs repair, no copy is made.
struct MarkupRepair {
    struct Result {
        /// The repaired bytes, or nil when the input needed no repair.
        var bytes: [UInt8]?
        var doctypeDeclaredEntities = false
        var droppedCharacters = 0
        var entitiesLeftUnexpanded = 0
        /// HTML void elements (`<br>`) written self-closing.
        var closedVoidElements = 0
    }

    private enum Mode { case markup, cdata, comment, instruction }

    let input: UnsafeBufferPointer<UInt8>
    var output: [UInt8] = []
    var copied = 0
    var changed = false
    var result = Result()
    /// Plain-text internal entities the document type declared.
    var declaredEntities: [String: [UInt8]] = [:]
    var closesVoidElements = false
    /// The `>` (or `/ >`) of a void element's start tag, to be written `/>`
    /// when the main loop reaches it (everything before it repaired as usual).
    var pendingClose: Range<Int>?
    var expansionBudget: Int

    private init(_ input: UnsafeBufferPointer<UInt8>) {
        self.input = input
        expansionBudget = input.count + (1 << 20)
    }

    /// - Parameter closingVoidElements: also write raw HTML void elements
    ///   (`<br>`) self-closing: a second pass, for a document the first left
    ///   broken (never for one that parses, where `<img>` may hold content).
    static func repair(_ input: UnsafeBufferPointer<UInt8>, closingVoidElements: Bool = false) -> Result {
        var pass = MarkupRepair(input)
        pass.closesVoidElements = closingVoidElements
        pass.run()
        if pass.changed {
            pass.flush(upTo: input.count)
            pass.result.bytes = pass.output
        }
        return pass.result
    }

    /// Copies the untouched input before `index`, then continues at `resume`.
    mutating func replace(_ range: Range<Int>, with bytes: some Sequence<UInt8>) {
        if !changed {
            changed = true
            output.reserveCapacity(input.count + 64)
        }
        flush(upTo: range.lowerBound)
        output.append(contentsOf: bytes)
        copied = range.upperBound
    }

    mutating func flush(upTo index: Int) {
        if index > copied { output.append(contentsOf: UnsafeBufferPointer(rebasing: input[copied..<index])) }
        copied = max(copied, index)
    }

    func starts(with literal: StaticString, at index: Int, caseInsensitive: Bool = false) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= input.count else { return false }
        let p = literal.utf8Start
        for k in 0..<count {
            var a = input[index + k]
            var b = p[k]
            if caseInsensitive {
                if a >= 0x61 && a <= 0x7A { a -= 0x20 }
                if b >= 0x61 && b <= 0x7A { b -= 0x20 }
            }
            if a != b { return false }
        }
        return true
    }

    private mutating func run() {
        var i = 0
        let n = input.count
        while i < n, input[i] == 0x20 || input[i] == 0x09 || input[i] == 0x0A || input[i] == 0x0D { i += 1 }
        if i > 0 { replace(0..<i, with: EmptyCollection()) }
        var mode = Mode.markup
        while i < n {
            if mode == .markup || mode == .cdata { i = skipPlainBytes(from: i, inCDATA: mode == .cdata) }
            if let close = pendingClose, i >= close.lowerBound {
                replace(close, with: "/>".utf8)
                result.closedVoidElements += 1
                pendingClose = nil
                i = close.upperBound
                continue
            }
            guard i < n else { break }
            let b = input[i]
            if b >= 0x20 && b < 0x80 {
                switch mode {
                case .markup:
                    if b == UInt8(ascii: "<") {
                        // Start and end tags, by far the most common, need nothing.
                        let next = i + 1 < n ? input[i + 1] : 0
                        if next == UInt8(ascii: "!") || next == UInt8(ascii: "?") {
                            i = markupOpening(at: i, mode: &mode)
                        } else {
                            if closesVoidElements && pendingClose == nil { noteVoidElement(at: i) }
                            i += 1
                        }
                    } else if b == UInt8(ascii: "&") {
                        i =
                            i + 4 <= n && (input[i + 1] == UInt8(ascii: "l") || input[i + 1] == UInt8(ascii: "g"))
                                && input[i + 2] == UInt8(ascii: "t") && input[i + 3] == UInt8(ascii: ";")
                            ? i + 4 : reference(at: i)
                    } else {
                        i += 1
                    }
                case .cdata:
                    if b == UInt8(ascii: "]") && starts(with: "]]>", at: i) {
                        mode = .markup
                        i += 3
                    } else {
                        i += 1
                    }
                case .comment:
                    if b == UInt8(ascii: "-") && starts(with: "-->", at: i) {
                        mode = .markup
                        i += 3
                    } else {
                        i += 1
                    }
                case .instruction:
                    if b == UInt8(ascii: "?") && starts(with: "?>", at: i) {
                        mode = .markup
                        i += 2
                    } else {
                        i += 1
                    }
                }
            } else if b < 0x20 {
                if b != 0x09 && b != 0x0A && b != 0x0D {
                    replace(i..<i + 1, with: EmptyCollection())
                    result.droppedCharacters += 1
                }
                i += 1
            } else {
                i = nonASCII(at: i)
            }
        }
    }

    /// The first index at or after `start` whose 8-byte word holds a byte
    /// that may need attention: a control byte, non-ASCII, and in markup `<`
    /// and `&`, in CDATA `]`. Plain text, most of a feed, is skipped a word
    /// at a time.
    private func skipPlainBytes(from start: Int, inCDATA: Bool) -> Int {
        guard let base = input.baseAddress else { return start }
        var i = start
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        /// High bit set in each byte of `word` equal to the byte repeated in `pattern`.
        @inline(__always) func has(_ word: UInt64, _ pattern: UInt64) -> UInt64 {
            let x = word ^ pattern
            return (x &- ones) & ~x & highs
        }
        while i + 8 <= input.count {
            let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            let below20 = (word &- 0x2020_2020_2020_2020) & ~word & highs
            let special =
                inCDATA
                ? has(word, 0x5D5D_5D5D_5D5D_5D5D) : has(word, 0x3C3C_3C3C_3C3C_3C3C) | has(word, 0x2626_2626_2626_2626)
            let flagged = (word & highs) | below20 | special
            // The lowest flagged byte is exact (borrows only spill upwards).
            if flagged != 0 { return i + flagged.trailingZeroBitCount / 8 }
            i += 8
        }
        return i
    }

    /// C1 controls (U+0080...U+009F, `C2 80`...`C2 9F`) and U+FFFE/U+FFFF.
    private mutating func nonASCII(at i: Int) -> Int {
        let b = input[i]
        if b == 0xC2, i + 1 < input.count, input[i + 1] >= 0x80, input[i + 1] <= 0x9F {
            let mapped = Windows1252.scalar(forC1: UInt32(input[i + 1]))
            if mapped != UInt32(input[i + 1]) {
                var bytes: [UInt8] = []
                UTF8Writer.append(mapped, to: &bytes)
                replace(i..<i + 2, with: bytes)
            }
            return i + 2
        }
        if b == 0xEF, i + 2 < input.count, input[i + 1] == 0xBF, input[i + 2] == 0xBE || input[i + 2] == 0xBF {
            replace(i..<i + 3, with: EmptyCollection())
            result.droppedCharacters += 1
            return i + 3
        }
        return i + 1
    }

    private mutating func markupOpening(at i: Int, mode: inout Mode) -> Int {
        if starts(with: "<![CDATA[", at: i) {
            mode = .cdata
            return i + 9
        }
        if starts(with: "<!--", at: i) {
            mode = .comment
            return i + 4
        }
        if starts(with: "<?", at: i) {
            mode = .instruction
            return i + 2
        }
        if starts(with: "<!DOCTYPE", at: i, caseInsensitive: true) {
            let end = endOfDoctype(from: i + 9)
            replace(i..<end, with: EmptyCollection())
            return end
        }
        return i + 1
    }

    func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
}
