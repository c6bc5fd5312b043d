extension MarkupRepair {
    /// HTML's void elements that raw HTML in feeds leaves unclosed (`<br>`,
    /// `<img ...>`), and that no feed format uses as an element of its own
    /// (`link` and `source` are RSS elements: not in the list).
    static let voidElements: [StaticString] = [
        "br", "hr", "img", "wbr", "area", "col", "embed", "param", "track", "input",
    ]

    /// First letters of `voidElements`, as bits: other tags cost one test.
    static let voidInitials: UInt32 = voidElements.reduce(0) {
        $0 | 1 << UInt32($1.utf8Start[0] - UInt8(ascii: "a"))
    }

    /// At a `<`: notes where a start tag of an HTML void element that is not
    /// closed (`<br>`, not `<br/>` nor `<br></br>`) ends, for the main loop
    /// to write it `/>` there; an upper-case name is lower-cased (`<BR>`
    /// would otherwise be serialized `<BR></BR>`, which HTML reads as two).
    /// Without it libxml2's recovery keeps the element open, and every item
    /// after it nests inside the item that held it and is lost.
    mutating func noteVoidElement(at i: Int) {
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
        // An upper-case name is written lower-case, closed or not (`<BR></br>` too).
        let nameRange = (i + 1)..<(i + 1 + name.utf8CodeUnitCount)
        let upper = input[nameRange].contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") })
        // `<br></br>`, as XHTML writers put it, is closed already (`</colgroup>` is not `</col>`).
        var m = k + 1
        while m < n, isSpace(input[m]) { m += 1 }
        let endName = m + 2 + name.utf8CodeUnitCount
        if endName < n, input[m] == UInt8(ascii: "<"), input[m + 1] == UInt8(ascii: "/"),
            starts(with: name, at: m + 2, caseInsensitive: true),
            input[endName] == UInt8(ascii: ">") || isSpace(input[endName])
        {
            // Rewriting the end tag now is only safe when nothing before it is left for
            // the main loop to repair (its replacements must come in order).
            let plain = input[(i + 1)..<endName].allSatisfy {
                ($0 >= 0x20 || isSpace($0)) && $0 < 0x80 && $0 != UInt8(ascii: "&")
            }
            if upper && plain {
                replace(nameRange, with: input[nameRange].map { $0 | 0x20 })
                let endRange = (m + 2)..<endName
                replace(endRange, with: input[endRange].map { $0 | 0x20 })
            }
            return
        }
        if upper { replace(nameRange, with: input[nameRange].map { $0 | 0x20 }) }
        pendingClose = k..<(k + 1)
    }
}
