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
/// - drops whitespace before the first `<`.
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

    private let input: UnsafeBufferPointer<UInt8>
    private var output: [UInt8] = []
    private var copied = 0
    private var changed = false
    private var result = Result()
    /// Plain-text internal entities the document type declared.
    private var declaredEntities: [String: [UInt8]] = [:]
    private var closesVoidElements = false
    /// The `>` (or `/ >`) of a void element's start tag, to be written `/>`
    /// when the main loop reaches it (everything before it repaired as usual).
    private var pendingClose: Range<Int>?
    private var expansionBudget: Int

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
    private mutating func replace(_ range: Range<Int>, with bytes: some Sequence<UInt8>) {
        if !changed {
            changed = true
            output.reserveCapacity(input.count + 64)
        }
        flush(upTo: range.lowerBound)
        output.append(contentsOf: bytes)
        copied = range.upperBound
    }

    private mutating func flush(upTo index: Int) {
        if index > copied { output.append(contentsOf: UnsafeBufferPointer(rebasing: input[copied..<index])) }
        copied = max(copied, index)
    }

    private func starts(with literal: StaticString, at index: Int, caseInsensitive: Bool = false) -> Bool {
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

    /// HTML's void elements that raw HTML in feeds leaves unclosed (`<br>`,
    /// `<img ...>`), and that no feed format uses as an element of its own
    /// (`link` and `source` are RSS elements: not in the list).
    private static let voidElements: [StaticString] = [
        "br", "hr", "img", "wbr", "area", "col", "embed", "param", "track", "input",
    ]

    /// First letters of `voidElements`, as bits: other tags cost one test.
    private static let voidInitials: UInt32 = voidElements.reduce(0) {
        $0 | 1 << UInt32($1.utf8Start[0] - UInt8(ascii: "a"))
    }

    /// At a `<`: notes where a start tag of an HTML void element that is not
    /// closed (`<br>`, not `<br/>` nor `<br></br>`) ends, for the main loop
    /// to write it `/>` there; an upper-case name is lower-cased (`<BR>`
    /// would otherwise be serialized `<BR></BR>`, which HTML reads as two).
    /// Without it libxml2's recovery keeps the element open, and every item
    /// after it nests inside the item that held it and is lost.
    private mutating func noteVoidElement(at i: Int) {
        let n = input.count
        guard i + 2 < n else { return }
        let first = input[i + 1] | 0x20
        guard first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z"),
            Self.voidInitials >> UInt32(first - UInt8(ascii: "a")) & 1 != 0,
            let name = Self.voidElements.first(where: { name in
                let end = i + 1 + name.utf8CodeUnitCount
                guard end < n, starts(with: name, at: i + 1, caseInsensitive: true) else { return false }
                let after = input[end]
                return after == UInt8(ascii: ">") || after == UInt8(ascii: "/") || isSpace(after)
            })
        else { return }
        // The tag's end, past quoted attribute values; a `<` ends the search
        // even inside quotes (a stray apostrophe must not hide the next tag).
        var k = i + 1 + name.utf8CodeUnitCount
        var quote: UInt8 = 0
        while k < n {
            let b = input[k]
            if b == UInt8(ascii: "<") { return }
            if quote != 0 {
                if b == quote { quote = 0 }
            } else if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                quote = b
            } else if b == UInt8(ascii: ">") {
                break
            }
            k += 1
        }
        guard k < n else { return }
        var last = k - 1
        while last > i, isSpace(input[last]) { last -= 1 }
        if input[last] == UInt8(ascii: "/") {
            // `<br/>` is closed; `<br/ >` is meant to be and is written so.
            if last < k - 1 { pendingClose = last..<(k + 1) }
            return
        }
        // `<br></br>`, as XHTML writers put it, is closed already.
        var m = k + 1
        while m < n, isSpace(input[m]) { m += 1 }
        if m + 1 < n, input[m] == UInt8(ascii: "<"), input[m + 1] == UInt8(ascii: "/"),
            starts(with: name, at: m + 2, caseInsensitive: true)
        {
            return
        }
        let nameRange = (i + 1)..<(i + 1 + name.utf8CodeUnitCount)
        if input[nameRange].contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) {
            replace(nameRange, with: input[nameRange].map { $0 | 0x20 })
        }
        pendingClose = k..<(k + 1)
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

    /// The index just past the `>` closing a document type declaration, read
    /// as the XML grammar has it (productions 28-29): the literals of the
    /// external ID, then an internal subset of declarations (whose quoted
    /// literals may hold `>` and `]`), comments and processing instructions
    /// (where a quote is just text), parameter-entity references and white
    /// space. Entity declarations met on the way are collected. Linear in
    /// the input; an unterminated construct runs to its end.
    private mutating func endOfDoctype(from start: Int) -> Int {
        var i = start
        while i < input.count {
            switch input[i] {
            case UInt8(ascii: "\""), UInt8(ascii: "'"): i = endOfLiteral(at: i)
            case UInt8(ascii: "["): i = endOfInternalSubset(from: i + 1)
            case UInt8(ascii: ">"): return i + 1
            default: i += 1
            }
        }
        return input.count
    }

    /// The index just past the `]` closing an internal subset.
    private mutating func endOfInternalSubset(from start: Int) -> Int {
        var i = start
        while i < input.count {
            let b = input[i]
            if b == UInt8(ascii: "]") { return i + 1 }
            guard b == UInt8(ascii: "<") else {
                i += 1  // white space, a parameter-entity reference, a stray byte
                continue
            }
            if starts(with: "<!--", at: i) {
                i = index(after: "-->", from: i + 4)
            } else if starts(with: "<?", at: i) {
                i = index(after: "?>", from: i + 2)
            } else {
                let end = endOfDeclaration(from: i + 1)
                if starts(with: "<!ENTITY", at: i) { collectEntity(in: i..<end) }
                i = end
            }
        }
        return input.count
    }

    /// The index just past the `>` closing a markup declaration, skipping its quoted literals.
    private func endOfDeclaration(from start: Int) -> Int {
        var i = start
        while i < input.count {
            switch input[i] {
            case UInt8(ascii: "\""), UInt8(ascii: "'"): i = endOfLiteral(at: i)
            case UInt8(ascii: ">"): return i + 1
            default: i += 1
            }
        }
        return input.count
    }

    /// The index just past the quote that closes the literal opened at `start`.
    private func endOfLiteral(at start: Int) -> Int {
        let quote = input[start]
        var i = start + 1
        while i < input.count, input[i] != quote { i += 1 }
        return min(i + 1, input.count)
    }

    private func index(after terminator: StaticString, from start: Int) -> Int {
        let first = terminator.utf8Start.pointee
        var i = start
        while i < input.count {
            if input[i] == first && starts(with: terminator, at: i) { return i + terminator.utf8CodeUnitCount }
            i += 1
        }
        return input.count
    }

    /// Records `<!ENTITY name "plain text">` (the declaration in `range`);
    /// notes any other entity declaration.
    private mutating func collectEntity(in range: Range<Int>) {
        result.doctypeDeclaredEntities = true
        var i = range.lowerBound + 8
        while i < range.upperBound, isSpace(input[i]) { i += 1 }
        let nameStart = i
        while i < range.upperBound, isNameByte(input[i], first: i == nameStart) { i += 1 }
        let name = String(decoding: UnsafeBufferPointer(rebasing: input[nameStart..<i]), as: UTF8.self)
        while i < range.upperBound, isSpace(input[i]) { i += 1 }
        guard !name.isEmpty, i < range.upperBound, input[i] == UInt8(ascii: "\"") || input[i] == UInt8(ascii: "'")
        else { return }  // a parameter entity, or an external one (SYSTEM/PUBLIC)
        let quote = input[i]
        let valueStart = i + 1
        var valueEnd = valueStart
        while valueEnd < range.upperBound, input[valueEnd] != quote { valueEnd += 1 }
        let value = Array(input[valueStart..<min(valueEnd, range.upperBound)])
        let plain = !value.contains {
            $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: "%")
        }
        if plain && value.count <= 1024 && declaredEntities[name] == nil { declaredEntities[name] = value }
    }

    private func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    /// Handles `&` in markup: keeps valid references, repairs the rest.
    private mutating func reference(at i: Int) -> Int {
        let n = input.count
        var j = i + 1
        if j < n && input[j] == UInt8(ascii: "#") {
            j += 1
            var hex = false
            // XML allows only a lower-case `x`; `&#X41;` is an HTML habit, rewritten below.
            var upperX = false
            if j < n && (input[j] == UInt8(ascii: "x") || input[j] == UInt8(ascii: "X")) {
                hex = true
                upperX = input[j] == UInt8(ascii: "X")
                j += 1
            }
            var value: UInt32 = 0
            var digits = 0
            while j < n, digits <= 8, let d = digitValue(input[j], hex: hex) {
                value = value &* (hex ? 16 : 10) &+ d
                digits += 1
                j += 1
            }
            guard digits > 0, digits <= 8, j < n, input[j] == UInt8(ascii: ";") else {
                replace(i..<i + 1, with: "&amp;".utf8)
                return i + 1
            }
            let end = j + 1
            let mapped = Windows1252.scalar(forC1: value)
            if !Self.isXMLCharacter(mapped) {
                replace(i..<end, with: EmptyCollection())
                result.droppedCharacters += 1
            } else if mapped != value || upperX {
                replace(i..<end, with: "&#\(mapped);".utf8)
            }
            return end
        }
        while j < n, j - i <= 32, isNameByte(input[j], first: j == i + 1) { j += 1 }
        guard j > i + 1, j < n, input[j] == UInt8(ascii: ";") else {
            replace(i..<i + 1, with: "&amp;".utf8)
            return i + 1
        }
        let nameBytes = UnsafeBufferPointer(rebasing: input[(i + 1)..<j])
        if Self.isPredefinedEntity(nameBytes) { return j + 1 }
        let name = String(decoding: nameBytes, as: UTF8.self)
        if let value = htmlNamedEntities[name] {
            replace(i..<j + 1, with: "&#\(value);".utf8)
        } else if let value = declaredEntities[name], value.count <= expansionBudget {
            expansionBudget -= value.count
            replace(i..<j + 1, with: value)
        } else {
            if declaredEntities[name] != nil { result.entitiesLeftUnexpanded += 1 }
            replace(i..<i + 1, with: "&amp;".utf8)
        }
        return j + 1
    }

    /// `amp`, `lt`, `gt`, `quot`, `apos`: compared as bytes, no String made.
    private static func isPredefinedEntity(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        switch name.count {
        case 2: return (name[0] == UInt8(ascii: "l") || name[0] == UInt8(ascii: "g")) && name[1] == UInt8(ascii: "t")
        case 3: return name.elementsEqual("amp".utf8)
        case 4: return name.elementsEqual("quot".utf8) || name.elementsEqual("apos".utf8)
        default: return false
        }
    }

    private func digitValue(_ b: UInt8, hex: Bool) -> UInt32? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(b - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f") where hex: return UInt32(b - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F") where hex: return UInt32(b - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    private func isNameByte(_ b: UInt8, first: Bool) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): return true
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."):
            return !first
        default: return false
        }
    }

    /// The `Char` production of XML 1.0.
    static func isXMLCharacter(_ v: UInt32) -> Bool {
        v == 0x9 || v == 0xA || v == 0xD || (0x20...0xD7FF).contains(v) || (0xE000...0xFFFD).contains(v)
            || (0x10000...0x10FFFF).contains(v)
    }
}
