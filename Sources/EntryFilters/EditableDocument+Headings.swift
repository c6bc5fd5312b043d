extension EditableDocument {
    /// Venus's `minhead.py`: when the document has a heading above level
    /// `lowest` (an `h1` when it is 3), every `h1`…`h6` of the whole document
    /// goes down so that the highest one found is `lowest`; a heading moved
    /// loses its attributes, and levels past 6 (`h7`) may come of it, as in
    /// Venus. Headings are matched by name wherever they are, as `minidom`'s
    /// `getElementsByTagName` matches them.
    /// - Returns: whether anything changed.
    func demoteHeadings(lowest: Int) -> Bool {
        let elements = elements()
        let names = Set(elements.map(\.name))
        guard lowest > 1, let first = (1..<lowest).first(where: { names.contains("h\($0)") }) else { return false }
        let shift = lowest - first
        for (node, name) in elements {
            guard name.count == 2, name.hasPrefix("h"), let level = Int(name.dropFirst()), (1...6).contains(level)
            else { continue }
            rename(node, to: "h\(level + shift)")
        }
        return true
    }
}
