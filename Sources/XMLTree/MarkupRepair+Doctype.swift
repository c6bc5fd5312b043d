extension MarkupRepair {
    /// The index just past the `>` closing a document type declaration, read
    /// as the XML grammar has it (productions 28-29): the literals of the
    /// external ID, then an internal subset of declarations (whose quoted
    /// literals may hold `>` and `]`), comments and processing instructions
    /// (where a quote is just text), parameter-entity references and white
    /// space. Entity declarations met on the way are collected. Linear in
    /// the input; an unterminated construct runs to its end.
    mutating func endOfDoctype(from start: Int) -> Int {
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
    mutating func endOfInternalSubset(from start: Int) -> Int {
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
    func endOfDeclaration(from start: Int) -> Int {
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
    func endOfLiteral(at start: Int) -> Int {
        let quote = input[start]
        var i = start + 1
        while i < input.count, input[i] != quote { i += 1 }
        return min(i + 1, input.count)
    }

    func index(after terminator: StaticString, from start: Int) -> Int {
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
    mutating func collectEntity(in range: Range<Int>) {
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
}
