// How `MarkupRepair` reads an `&` in markup: character references checked
// and mapped, HTML named entities made numeric, declared plain-text entities
// expanded within the budget, anything else escaped as text.
extension MarkupRepair {
    /// Handles `&` in markup: keeps valid references, repairs the rest.
    mutating func reference(at i: Int) -> Int {
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

    func isNameByte(_ b: UInt8, first: Bool) -> Bool {
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
