/// Keeps known gumbo 0.10.1 aborts out of reach of feed content.
///
/// gumbo's parser asserts (and aborts the process) on a `select` reopened
/// inside SVG or MathML text integration points while a table is open:
/// `<table><math><select><mtext><select><table>` is enough (found by the
/// random-markup tests). A feed must not be able to kill a run, so when an
/// input holds both a `select` tag and an `svg` or `math` one, every
/// `select` tag name is renamed to the unknown `selecx` (same length) before
/// parsing. `select` is a form control the sanitizer drops anyway; the
/// renamed element is unknown and unwrapped, its `option`s still dropped.
enum GumboWorkaround {
    /// The input with `select` tags renamed, or nil when it needs no change.
    static func apply(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var selects: [Int] = []
        var foreign = false
        var index = 0
        let count = input.count
        while index < count {
            guard input[index] == UInt8(ascii: "<") else {
                index += 1
                continue
            }
            var name = index + 1
            if name < count, input[name] == UInt8(ascii: "/") { name += 1 }
            if matches(input, at: name, "select") {
                selects.append(name)
            } else if matches(input, at: name, "math") || matches(input, at: name, "svg") {
                foreign = true
            }
            index = name
        }
        guard foreign, !selects.isEmpty else { return nil }
        var out = Array(input)
        for name in selects { out[name + 5] = UInt8(ascii: "x") }
        return out
    }

    /// Whether `word` (lowercase letters) starts at `index`, case-insensitively.
    private static func matches(_ input: UnsafeBufferPointer<UInt8>, at index: Int, _ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= input.count else { return false }
        let letters = UnsafeBufferPointer(start: word.utf8Start, count: count)
        for offset in 0..<count where input[index + offset] | 0x20 != letters[offset] { return false }
        return true
    }
}
