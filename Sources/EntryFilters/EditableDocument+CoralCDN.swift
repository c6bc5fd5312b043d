extension EditableDocument {
    /// Venus's `coral_cdn_filter.py`: every `img` element's `src` that is an
    /// `http` URL is fetched through the Coral CDN (`CoralCDN.address`).
    /// - Returns: whether anything changed; nil when a `src` is a URL that
    ///   Python's `urlparse` refuses, on which the Venus filter fails.
    func routeImagesThroughCoral() -> Bool? {
        var changed = false
        for (node, name) in elements() where name == "img" {
            guard let source = attribute("src", of: node) else { continue }
            switch CoralCDN.address(source) {
            case .unchanged: continue
            case .refused: return nil
            case .rewritten(let address):
                setAttribute("src", address, of: node)
                changed = true
            }
        }
        return changed
    }
}
