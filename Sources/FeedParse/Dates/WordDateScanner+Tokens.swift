// The tokens `WordDateScanner` reads a date string as: numbers, words
// (with what each word means in a date) and single marks, between spaces
// (ASCII white space and the no-break spaces localized formatters write).
extension WordDateScanner {
    enum Token {
        case number(value: Int, digits: Int)
        case word(Range<Int>)
        case mark(UInt8)
    }

    private func isWordByte(_ c: UInt8) -> Bool {
        (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || c >= 0x80
    }

    /// The bytes of a space at `k`: ASCII white space, or the no-break
    /// spaces localized formatters write (U+00A0, and U+202F before `PM`
    /// or in French dates); 0 if there is none.
    private func spaceLength(at k: Int) -> Int {
        if DateParser.isSpace(b[k]) { return 1 }
        if b[k] == 0xC2, k + 1 < b.count, b[k + 1] == 0xA0 { return 2 }
        if b[k] == 0xE2, k + 2 < b.count, b[k + 1] == 0x80, b[k + 2] == 0xAF { return 3 }
        return 0
    }

    /// The token at `i` without consuming it, and the index after it.
    func token(at start: Int) -> (Token, Int)? {
        var k = start
        while k < b.count, case let n = spaceLength(at: k), n > 0 { k += n }
        guard k < b.count else { return nil }
        let c = b[k]
        if DateParser.isDigit(c) {
            var value = 0
            var end = k
            while end < b.count, DateParser.isDigit(b[end]), end - k < 9 {
                value = value * 10 + Int(b[end] - 0x30)
                end += 1
            }
            return (.number(value: value, digits: end - k), end)
        }
        if isWordByte(c) {
            var end = k
            while end < b.count, isWordByte(b[end]), spaceLength(at: end) == 0 { end += 1 }
            return (.word(k..<end), end)
        }
        return (.mark(c), k + 1)
    }

    mutating func next() -> Token? {
        guard let (t, end) = token(at: i) else { return nil }
        i = end
        return t
    }

    func peek() -> Token? { token(at: i)?.0 }

    /// English names first, as the fast path reads them; the other
    /// languages only when those do not know the word.
    func meaning(of range: Range<Int>) -> DateWord? {
        let slice = UnsafeBufferPointer(rebasing: b[range])
        let ascii = !slice.contains(where: { $0 >= 0x80 })
        if ascii && slice.count <= 8 {
            let key = DateWord.pack(slice)
            return DateWord.lookup(packed: key) ?? DateWord.localized.find(key)
        }
        let text = String(decoding: slice, as: UTF8.self)
        if !ascii && text.lowercased() == "à" { return .connective }  // French `à 10:00`, folded the zone `A`
        let word = DateWord.table[ascii ? text.lowercased() : DateWord.fold(text)]
        switch word {
        case .zone?, .zoneAfterTime?: return ascii ? word : nil  // zones are ASCII: `à` is not `A`
        default: return word
        }
    }
}
