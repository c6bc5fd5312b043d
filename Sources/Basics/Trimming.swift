extension StringProtocol {
    /// Without leading and trailing ASCII whitespace (space, tab, line
    /// feed, vertical tab, form feed, carriage return).
    public var trimmingWhitespace: String {
        let whole = Substring(self)
        let utf8 = whole.utf8
        guard let first = utf8.firstIndex(where: { !isASCIIWhitespace($0) }) else { return "" }
        let last = utf8.lastIndex(where: { !isASCIIWhitespace($0) })!
        if first == utf8.startIndex && utf8.index(after: last) == utf8.endIndex { return String(whole) }
        return String(Substring(utf8[first...last]))
    }

    /// Without leading and trailing characters (Unicode scalars) of `set`.
    public func trimming(_ set: String) -> String {
        let scalars = set.unicodeScalars
        var view = Substring(self).unicodeScalars[...]
        while let first = view.first, scalars.contains(first) { view = view.dropFirst() }
        while let last = view.last, scalars.contains(last) { view = view.dropLast() }
        return String(String.UnicodeScalarView(view))
    }
}

@inline(__always)
private func isASCIIWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || (byte >= 0x09 && byte <= 0x0D)
}
